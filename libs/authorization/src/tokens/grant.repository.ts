import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { Confirmation, ExtensionAttachments } from '@portcullis/extensions';
import {
  Prisma,
  UnitOfWork,
  type AccessToken,
  type Db,
  type AuthorizationCode,
  type AuthorizationGrant,
  type RefreshToken,
} from '@portcullis/persistence';

/** SHA-256, base64url: how codes and refresh tokens are stored, so a database reader cannot use them. */
export function tokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('base64url');
}

/** A new 256-bit random value, base64url (RFC 6749 10.10, RFC 9700 4.1.1). */
export function randomToken(): string {
  return randomBytes(32).toString('base64url');
}

export interface NewGrant {
  clientId: string;
  userId: string;
  resource: string;
  scopes: string[];
  sessionId?: string;
  offlineAccess: boolean;
  authTime: Date;
  /** How the user authenticated (RFC 8176 values of the session). */
  amr?: string[];
  /** The authorization request as extension checks saw it, for extensions' token claims. */
  authorizationRequest?: { params: Record<string, string>; resources: string[] };
  /** What extension checks attached, by extension id. */
  attachments?: ExtensionAttachments;
  absoluteExpiresAt: Date;
}

export interface NewCode {
  redirectUri: string;
  /** Whether the authorization request carried `redirect_uri`, which the token request must then repeat. */
  redirectUriSent: boolean;
  codeChallenge: string;
  nonce?: string;
  /** The key the authorization request bound the code to (RFC 9449 section 10, `dpop_jkt`). */
  confirmation?: Confirmation;
  expiresAt: Date;
}

/** The outcome of redeeming a code: redeemed now, or why not. */
export type CodeRedemption =
  | { outcome: 'redeemed'; code: AuthorizationCode; grant: AuthorizationGrant }
  | { outcome: 'unknown' | 'expired' }
  | { outcome: 'replayed'; grantId: string };

/** The outcome of consuming a refresh token; a token used before comes back as it is now stored. */
export type RefreshConsumption =
  | { outcome: 'consumed'; token: RefreshToken; grant: AuthorizationGrant }
  | { outcome: 'unknown' | 'expired' }
  | { outcome: 'reused'; token: RefreshToken };

/**
 * Grants (one authorization and every token descended from it), their codes and refresh tokens, and the record of
 * issued access tokens. Single use is decided by the database: a conditional update that only one of any number
 * of concurrent requests can win. Every statement runs in the caller's unit of work when one is in progress, so a
 * grant consumes its code or refresh token and stores what it issues in one transaction.
 */
@Injectable()
export class GrantRepository {
  constructor(private readonly work: UnitOfWork) {}

  get #db(): Db {
    return this.work.db;
  }

  /** Stores a grant and its code; returns the code in the clear (it is stored only hashed). */
  async createWithCode(grant: NewGrant, code: NewCode): Promise<string> {
    const value = randomToken();
    const id = randomUUID();
    await this.work.run(async () => {
      await this.#db.authorizationGrant.create({
        data: {
          id,
          ...grant,
          sessionId: grant.sessionId ?? null,
          amr: grant.amr ?? [],
          authorizationRequest: jsonOrNull(grant.authorizationRequest),
          attachments: jsonOrNull(grant.attachments),
        },
      });
      // When this client last completed an authorization: what the sweep of unused registrations reads.
      await this.#db.client.updateMany({ where: { id: grant.clientId }, data: { lastUsedAt: new Date() } });
      await this.#db.authorizationCode.create({
        data: {
          codeHash: tokenHash(value),
          grantId: id,
          clientId: grant.clientId,
          redirectUri: code.redirectUri,
          redirectUriSent: code.redirectUriSent,
          codeChallenge: code.codeChallenge,
          nonce: code.nonce ?? null,
          confirmation: jsonOrNull(code.confirmation),
          expiresAt: code.expiresAt,
        },
      });
    });
    return value;
  }

  /** Finds a code without consuming it, for the binding checks that come first. */
  findCode(code: string): Promise<AuthorizationCode | null> {
    return this.#db.authorizationCode.findUnique({ where: { codeHash: tokenHash(code) } });
  }

  /**
   * Marks a code found by {@link findCode} used, atomically: of concurrent redemptions exactly one sees
   * `redeemed`; the others, and every later one, see `replayed`. In a unit of work, a redemption rolled back
   * leaves the code redeemable.
   */
  async redeemCode(stored: AuthorizationCode, now = new Date()): Promise<CodeRedemption> {
    const { count } = await this.#db.authorizationCode.updateMany({
      where: { codeHash: stored.codeHash, consumedAt: null, expiresAt: { gt: now } },
      data: { consumedAt: now },
    });
    if (count === 1) {
      const grant = await this.#db.authorizationGrant.findUniqueOrThrow({ where: { id: stored.grantId } });
      return { outcome: 'redeemed', code: { ...stored, consumedAt: now }, grant };
    }
    // Lost the race or too late: which one decides whether the grant must be revoked.
    const row = await this.#db.authorizationCode.findUnique({
      where: { codeHash: stored.codeHash },
      select: { consumedAt: true },
    });
    if (!row) return { outcome: 'unknown' };
    return row.consumedAt ? { outcome: 'replayed', grantId: stored.grantId } : { outcome: 'expired' };
  }

  /**
   * Stores a new refresh token of a grant, bound to `confirmation` when set (RFC 9449 section 5); returns it in the
   * clear.
   */
  async createRefreshToken(
    grantId: string,
    scopes: string[],
    expiresAt: Date,
    confirmation?: Confirmation,
  ): Promise<string> {
    const value = randomToken();
    await this.#db.refreshToken.create({
      data: {
        tokenHash: tokenHash(value),
        grantId,
        scopes,
        expiresAt,
        confirmation: jsonOrNull(confirmation),
      },
    });
    return value;
  }

  findRefreshToken(token: string): Promise<RefreshToken | null> {
    return this.#db.refreshToken.findUnique({ where: { tokenHash: tokenHash(token) } });
  }

  /** A refresh token by its stored hash (a rotation's successor). */
  findRefreshTokenByHash(hash: string): Promise<RefreshToken | null> {
    return this.#db.refreshToken.findUnique({ where: { tokenHash: hash } });
  }

  /**
   * Consumes a refresh token found by {@link findRefreshToken}, atomically: of concurrent uses exactly one sees
   * `consumed`; in a unit of work the others wait until it commits (then see `reused`, with the row as the winner
   * left it) or rolls back (then one of them consumes it).
   */
  async consumeRefreshToken(
    stored: RefreshToken,
    grant: AuthorizationGrant,
    now = new Date(),
  ): Promise<RefreshConsumption> {
    // One statement: used up only while unused, unexpired and its family not revoked, so a revocation that
    // committed before it is seen without reading the grant again.
    const count = await this.#db.$executeRaw`
      UPDATE refresh_tokens r SET consumed_at = ${now}
       WHERE r.token_hash = ${stored.tokenHash} AND r.consumed_at IS NULL AND r.expires_at > ${now}
         AND EXISTS (SELECT 1 FROM grants g WHERE g.id = r.grant_id AND g.revoked_at IS NULL)`;
    if (count === 1) return { outcome: 'consumed', token: { ...stored, consumedAt: now }, grant };
    const row = await this.#db.refreshToken.findUnique({ where: { tokenHash: stored.tokenHash } });
    if (!row) return { outcome: 'unknown' };
    // Unused but not consumable: expired, or its family revoked meanwhile.
    return row.consumedAt ? { outcome: 'reused', token: row } : { outcome: 'expired' };
  }

  /**
   * Records what a consumed refresh token was rotated into, for the reuse grace window: its successor's hash and the
   * sealed response (see `refresh-replay.ts`).
   */
  async recordRotation(consumedHash: string, successorHash: string, replay: string): Promise<void> {
    await this.#db.refreshToken.update({
      where: { tokenHash: consumedHash },
      data: { successorHash, replay },
    });
  }

  /** Records an issued access token by `jti`, for revocation and introspection. */
  async recordAccessToken(token: {
    jti: string;
    grantId?: string;
    clientId: string;
    subject: string;
    audience: string;
    scopes: string[];
    expiresAt: Date;
  }): Promise<void> {
    await this.#db.accessToken.create({ data: { ...token, grantId: token.grantId ?? null } });
  }

  findGrant(id: string): Promise<AuthorizationGrant | null> {
    return this.#db.authorizationGrant.findUnique({ where: { id } });
  }

  /**
   * Revokes a grant and everything descended from it: its unused codes and refresh tokens can no longer be used,
   * and its access tokens are marked revoked (introspection answers inactive).
   *
   * @see https://www.rfc-editor.org/rfc/rfc9700#section-4.14.2 (refresh token reuse)
   * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.1.2 (code reuse)
   */
  async revokeGrant(grantId: string, now = new Date()): Promise<void> {
    await this.work.run(async () => {
      await this.#db.authorizationGrant.updateMany({
        where: { id: grantId, revokedAt: null },
        data: { revokedAt: now },
      });
      await this.#db.authorizationCode.updateMany({
        where: { grantId, consumedAt: null },
        data: { consumedAt: now },
      });
      await this.#db.refreshToken.updateMany({
        where: { grantId, consumedAt: null },
        data: { consumedAt: now },
      });
      // Nothing of a revoked family is given again within a reuse grace window either.
      await this.#db.refreshToken.updateMany({
        where: { grantId, replay: { not: null } },
        data: { replay: null },
      });
      await this.#db.accessToken.updateMany({
        where: { grantId, revokedAt: null },
        data: { revokedAt: now },
      });
    });
  }

  /** The record of an issued access token, by `jti`. */
  findAccessToken(jti: string): Promise<AccessToken | null> {
    return this.#db.accessToken.findUnique({ where: { jti } });
  }

  /**
   * Marks one access token revoked, only if it was issued to `clientId` (RFC 7009 2.1); true when it was.
   *
   * @see https://www.rfc-editor.org/rfc/rfc7009#section-2.1
   */
  async revokeAccessToken(jti: string, clientId: string, now = new Date()): Promise<boolean> {
    const { count } = await this.#db.accessToken.updateMany({
      where: { jti, clientId, revokedAt: null },
      data: { revokedAt: now },
    });
    return count === 1;
  }

  /** Revokes every grant of a client or of a user (see {@link revokeGrant}); returns how many. */
  async revokeGrantsOf(owner: { clientId: string } | { userId: string }, now = new Date()): Promise<number> {
    const grants = await this.#db.authorizationGrant.findMany({
      where: { ...owner, revokedAt: null },
      select: { id: true },
    });
    for (const { id } of grants) await this.revokeGrant(id, now);
    return grants.length;
  }
}

/** A JSON object (a confirmation, attachments) as a JSON column value: SQL NULL when there is none. */
function jsonOrNull(value: object | undefined): Prisma.InputJsonObject | typeof Prisma.DbNull {
  return value === undefined ? Prisma.DbNull : (value as Prisma.InputJsonObject);
}
