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
  type LoginSession,
  type RefreshToken,
} from '@portcullis/persistence';
import {
  codeGrantOf,
  codeOf,
  GRANT_COLUMNS,
  grantOf,
  refreshTokenOf,
  sessionOf,
  type CodeGrantRow,
  type RefreshFamilyRow,
} from './grant-rows.js';

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

/** An authorization code with its grant, as stored. */
export interface CodeGrant {
  code: AuthorizationCode;
  /** Null when the grant's row is gone. */
  grant: AuthorizationGrant | null;
}

/** What a code redemption stores: the access token and, when one was issued, the refresh token. */
export interface Redemption {
  accessToken: IssuedAccessToken;
  refreshToken?: NewRefreshToken;
  /** The sealed response (see `refresh-replay.ts`), kept with the used code under a reuse grace window. */
  replay?: string;
}

/**
 * The pending authorization a code ends: taken (removed) in the statement that stores the code, so that of two
 * answers to it only one stores a code; with the redirect that takes the code to the browser, sealed (see
 * `interaction.service.ts`), for a final form sent again.
 */
export interface EndedInteraction {
  /** The pending authorization's id (SHA-256 of its handle). */
  id: string;
  /** The sealed redirect. */
  answer: string;
}

/** What a pending authorization's code is now: what decides whether its redirect may be given again. */
export interface InteractionCode {
  answer: string | null;
  consumedAt: Date | null;
  expiresAt: Date;
  /** Whether its grant is revoked or gone. */
  grantEnded: boolean;
  /** The login session its grant was issued in. */
  sessionId: string | null;
}

/** The outcome of redeeming a code: redeemed now, or why not. */
export type CodeRedemption =
  { outcome: 'redeemed' } | { outcome: 'unknown' | 'expired' } | { outcome: 'replayed'; grantId: string };

/** The record of an issued access token, by `jti` (what revocation and introspection look up). */
export interface IssuedAccessToken {
  jti: string;
  grantId?: string;
  clientId: string;
  subject: string;
  audience: string;
  scopes: string[];
  expiresAt: Date;
}

/** A refresh token to store: its hash (the token itself is never stored), family, scopes, expiry and key binding. */
export interface NewRefreshToken {
  tokenHash: string;
  grantId: string;
  scopes: string[];
  expiresAt: Date;
  /** The key it is bound to (RFC 9449 section 5); unbound when absent. */
  confirmation?: Confirmation;
}

/** A refresh token with its family and, when the family has one, the login session it came from, as stored. */
export interface RefreshFamily {
  token: RefreshToken;
  grant: AuthorizationGrant;
  /** Null when the grant has no session or its row is gone. */
  session: Pick<LoginSession, 'id' | 'expiresAt' | 'revokedAt'> | null;
}

/** What a rotation stores: the successor and the access token, and for a reuse grace window what it answered. */
export interface Rotation {
  successor: NewRefreshToken;
  accessToken: IssuedAccessToken;
  /** The sealed response (see `refresh-replay.ts`), kept with the consumed token under a reuse grace window. */
  replay?: string;
}

/** The outcome of rotating a refresh token; a token used before comes back as it is now stored. */
export type RefreshRotation =
  { outcome: 'rotated' } | { outcome: 'unknown' | 'expired' } | { outcome: 'reused'; token: RefreshToken };

/**
 * Grants (one authorization and every token descended from it), their codes and refresh tokens, and the record of
 * issued access tokens. Single use is decided by the database: a conditional update that only one of any number
 * of concurrent requests can win, in the same statement that stores what the code or refresh token is exchanged
 * for. Every statement runs in the caller's unit of work when one is in progress; outside one, the statements of the
 * token and authorization paths run straight on the driver adapter (`UnitOfWork.query`), without Prisma's engine.
 */
@Injectable()
export class GrantRepository {
  constructor(private readonly work: UnitOfWork) {}

  get #db(): Db {
    return this.work.db;
  }

  /**
   * Stores a grant and its code, in one statement, and marks the client used (what the sweep of unused
   * registrations reads; moved at most once a minute, so that concurrent authorizations of one client do not queue
   * on its row). With `interaction`, the same statement takes the pending authorization the code ends and stores
   * nothing unless it took it (another answer to it did first, or it expired): then undefined; its code is made by
   * the caller then (`value`: the sealed redirect names it). Returns the code in the clear (it is stored only hashed).
   */
  async createWithCode(grant: NewGrant, code: NewCode, options?: { now?: Date }): Promise<string>;
  async createWithCode(
    grant: NewGrant,
    code: NewCode,
    options: { now?: Date; interaction: EndedInteraction; value: string },
  ): Promise<string | undefined>;
  async createWithCode(
    grant: NewGrant,
    code: NewCode,
    {
      now = new Date(),
      interaction,
      value = randomToken(),
    }: { now?: Date; interaction?: EndedInteraction; value?: string } = {},
  ): Promise<string | undefined> {
    const id = randomUUID();
    const taken = interaction
      ? Prisma.sql`taken AS (
          DELETE FROM pending_authorizations
           WHERE id = ${interaction.id}::text AND expires_at > ${now}::timestamptz
          RETURNING id
        ), `
      : Prisma.empty;
    const onlyIfTaken = interaction ? Prisma.sql`WHERE EXISTS (SELECT 1 FROM taken)` : Prisma.empty;
    const stored = await this.work.execute(Prisma.sql`
      WITH ${taken}new_grant AS (
        INSERT INTO grants (id, client_id, user_id, resource, scopes, session_id, offline_access, auth_time, amr,
                            authorization_request, attachments, absolute_expires_at)
        SELECT ${id}::uuid, ${grant.clientId}::text, ${grant.userId}::uuid, ${grant.resource}::text,
               ${grant.scopes}::text[], ${grant.sessionId ?? null}::text, ${grant.offlineAccess}::boolean,
               ${grant.authTime}::timestamptz, ${grant.amr ?? []}::text[],
               ${jsonText(grant.authorizationRequest)}::jsonb, ${jsonText(grant.attachments)}::jsonb,
               ${grant.absoluteExpiresAt}::timestamptz
        ${onlyIfTaken}
        RETURNING id
      ), used AS (
        UPDATE clients
           SET last_used_at = ${now}::timestamptz, updated_at = ${now}::timestamptz
         WHERE client_id = ${grant.clientId}::text
           AND (last_used_at IS NULL OR last_used_at < ${new Date(now.getTime() - LAST_USED_PRECISION_MS)}::timestamptz)
      )
      INSERT INTO authorization_codes (code_hash, grant_id, client_id, redirect_uri, redirect_uri_sent,
                                       code_challenge, nonce, confirmation, expires_at, interaction_id, answer)
      SELECT ${tokenHash(value)}::text, g.id, ${grant.clientId}::text, ${code.redirectUri}::text,
             ${code.redirectUriSent}::boolean, ${code.codeChallenge}::text, ${code.nonce ?? null}::text,
             ${jsonText(code.confirmation)}::jsonb, ${code.expiresAt}::timestamptz,
             ${interaction?.id ?? null}::text, ${interaction?.answer ?? null}::text
        FROM new_grant g`);
    if (interaction && stored === 0) return undefined;
    if (stored !== 1) throw new Error(`storing an authorization code stored ${stored} rows`);
    return value;
  }

  /** The code that ended a pending authorization (by its id), as it is now; undefined when none did. */
  async interactionCode(interactionId: string): Promise<InteractionCode | undefined> {
    const rows = await this.work.query<{
      answer: string | null;
      consumed_at: Date | null;
      expires_at: Date;
      grant_ended: boolean;
      session_id: string | null;
    }>(Prisma.sql`
      SELECT c.answer, c.consumed_at, c.expires_at, (g.id IS NULL OR g.revoked_at IS NOT NULL) AS grant_ended,
             g.session_id
        FROM authorization_codes c
        LEFT JOIN grants g ON g.id = c.grant_id
       WHERE c.interaction_id = ${interactionId}::text
       ORDER BY c.created_at DESC
       LIMIT 1`);
    const row = rows[0];
    return row
      ? {
          answer: row.answer,
          consumedAt: row.consumed_at,
          expiresAt: row.expires_at,
          grantEnded: row.grant_ended,
          sessionId: row.session_id,
        }
      : undefined;
  }

  /**
   * An authorization code with its grant, in one statement, without consuming it: everything a redemption decides
   * on before it redeems. Null when the code is not stored.
   */
  async findCodeGrant(code: string): Promise<CodeGrant | null> {
    const rows = await this.work.query<CodeGrantRow>(Prisma.sql`
      SELECT c.code_hash, c.grant_id, c.client_id, c.redirect_uri, c.redirect_uri_sent, c.code_challenge, c.nonce,
             c.confirmation, c.expires_at, c.consumed_at, c.created_at, c.replay, c.interaction_id, c.answer,
             ${GRANT_COLUMNS}
        FROM authorization_codes c
        LEFT JOIN grants g ON g.id = c.grant_id
       WHERE c.code_hash = ${tokenHash(code)}`);
    const row = rows[0];
    return row ? { code: codeOf(row), grant: codeGrantOf(row) } : null;
  }

  /**
   * Redeems a code found by {@link findCodeGrant}, in one statement: consumes it, only while it is unused, unexpired
   * and its grant not revoked (so a revocation that committed before is seen without reading the grant again), and
   * only then stores the access token and the refresh token issued for it. Of concurrent redemptions exactly one
   * sees `redeemed`: the others wait for its row lock, then find the code used and see `replayed`, as does every
   * later one (RFC 6749 4.1.2). A statement that fails stores nothing and leaves the code redeemable.
   *
   * @see https://www.postgresql.org/docs/15/queries-with.html#QUERIES-WITH-MODIFYING
   */
  async redeemCode(
    stored: AuthorizationCode,
    { accessToken, refreshToken, replay }: Redemption,
    now = new Date(),
  ): Promise<CodeRedemption> {
    const refresh = refreshToken
      ? Prisma.sql`, refresh AS (${insertRefreshToken(refreshToken)})`
      : Prisma.empty;
    const rows = await this.work.query<{ redeemed: number }>(Prisma.sql`
      WITH consumed AS (
        UPDATE authorization_codes c
           SET consumed_at = ${now}::timestamptz, replay = ${replay ?? null}::text
         WHERE c.code_hash = ${stored.codeHash} AND c.consumed_at IS NULL
           AND c.expires_at > ${now}::timestamptz
           AND EXISTS (SELECT 1 FROM grants g WHERE g.id = c.grant_id AND g.revoked_at IS NULL)
        RETURNING c.grant_id
      ), access AS (${insertAccessToken(accessToken)})${refresh}
      SELECT (SELECT count(*) FROM consumed)::int AS redeemed`);
    if (rows[0]?.redeemed === 1) return { outcome: 'redeemed' };
    // Lost to another redemption, or not redeemable: which one decides whether the grant must be revoked.
    const row = await this.#db.authorizationCode.findUnique({
      where: { codeHash: stored.codeHash },
      select: { consumedAt: true },
    });
    if (!row) return { outcome: 'unknown' };
    // Unused but not redeemable: expired, or its grant revoked meanwhile.
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
    await this.storeRefreshToken({
      tokenHash: tokenHash(value),
      grantId,
      scopes,
      expiresAt,
      ...(confirmation ? { confirmation } : {}),
    });
    return value;
  }

  /** Stores a refresh token made by the caller (see {@link createRefreshToken}). */
  async storeRefreshToken(token: NewRefreshToken): Promise<void> {
    await this.#db.refreshToken.create({
      data: { ...token, confirmation: jsonOrNull(token.confirmation) },
    });
  }

  findRefreshToken(token: string): Promise<RefreshToken | null> {
    return this.#db.refreshToken.findUnique({ where: { tokenHash: tokenHash(token) } });
  }

  /** A refresh token by its stored hash (a rotation's successor). */
  findRefreshTokenByHash(hash: string): Promise<RefreshToken | null> {
    return this.#db.refreshToken.findUnique({ where: { tokenHash: hash } });
  }

  /**
   * A refresh token with its grant and the grant's login session, in one statement: everything a refresh decides
   * on before it rotates. Null when the token, or its grant, is not stored.
   */
  async findRefreshFamily(token: string): Promise<RefreshFamily | null> {
    const rows = await this.work.query<RefreshFamilyRow>(Prisma.sql`
      SELECT r.token_hash, r.grant_id, COALESCE(r.scopes, '{}') AS scopes, r.confirmation, r.expires_at,
             r.consumed_at, r.successor_hash, r.replay, r.created_at, ${GRANT_COLUMNS},
             s.id AS s_id, s.expires_at AS s_expires_at, s.revoked_at AS s_revoked_at
        FROM refresh_tokens r
        JOIN grants g ON g.id = r.grant_id
        LEFT JOIN login_sessions s ON s.id = g.session_id
       WHERE r.token_hash = ${tokenHash(token)}`);
    const row = rows[0];
    return row ? { token: refreshTokenOf(row), grant: grantOf(row), session: sessionOf(row) } : null;
  }

  /**
   * Rotates a refresh token found by {@link findRefreshFamily}, in one statement: consumes it, only while it is
   * unused, unexpired and its family not revoked (so a revocation that committed before is seen without reading the
   * grant again), and only then stores its successor and the access token issued with it, and under a reuse grace
   * window what it was rotated into. Of concurrent rotations exactly one sees `rotated`: the others wait for its
   * row lock, then find the row used (RFC 9700 4.14.2) and see `reused`, with the row as the winner left it. A
   * statement that fails stores nothing and leaves the token usable.
   *
   * @see https://www.postgresql.org/docs/15/queries-with.html#QUERIES-WITH-MODIFYING
   */
  async rotateRefreshToken(
    consumed: RefreshToken,
    { successor, accessToken, replay }: Rotation,
    now = new Date(),
  ): Promise<RefreshRotation> {
    const rows = await this.work.query<{ rotated: number }>(Prisma.sql`
      WITH consumed AS (
        UPDATE refresh_tokens r
           SET consumed_at = ${now}::timestamptz,
               successor_hash = ${replay === undefined ? null : successor.tokenHash}::text,
               replay = ${replay ?? null}::text
         WHERE r.token_hash = ${consumed.tokenHash} AND r.consumed_at IS NULL
           AND r.expires_at > ${now}::timestamptz
           AND EXISTS (SELECT 1 FROM grants g WHERE g.id = r.grant_id AND g.revoked_at IS NULL)
        RETURNING r.grant_id
      ), successor AS (${insertRefreshToken(successor)}), access AS (${insertAccessToken(accessToken)})
      SELECT (SELECT count(*) FROM consumed)::int AS rotated`);
    if (rows[0]?.rotated === 1) return { outcome: 'rotated' };
    // Lost to another use, or not consumable: which one decides whether the family must be revoked.
    const row = await this.findRefreshTokenByHash(consumed.tokenHash);
    if (!row) return { outcome: 'unknown' };
    // Unused but not consumable: expired, or its family revoked meanwhile.
    return row.consumedAt ? { outcome: 'reused', token: row } : { outcome: 'expired' };
  }

  /** Records an issued access token by `jti`, for revocation and introspection. */
  async recordAccessToken(token: IssuedAccessToken): Promise<void> {
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

/** How stale a client's `last_used_at` may be: concurrent authorizations of a client move it once. */
const LAST_USED_PRECISION_MS = 60_000;

/** A JSON object (a confirmation, attachments) as a JSON column value: SQL NULL when there is none. */
function jsonOrNull(value: object | undefined): Prisma.InputJsonObject | typeof Prisma.DbNull {
  return value === undefined ? Prisma.DbNull : (value as Prisma.InputJsonObject);
}

/**
 * The insert of a refresh token into the family of the `consumed` row of the statement it is part of (a CTE's body:
 * nothing is stored unless that row was consumed).
 */
function insertRefreshToken(token: NewRefreshToken): Prisma.Sql {
  return Prisma.sql`
    INSERT INTO refresh_tokens (token_hash, grant_id, scopes, expires_at, confirmation)
    SELECT ${token.tokenHash}::text, c.grant_id, ${token.scopes}::text[],
           ${token.expiresAt}::timestamptz, ${jsonText(token.confirmation)}::jsonb
      FROM consumed c
    RETURNING 1`;
}

/** The record of an access token issued with the `consumed` row of the statement it is part of (a CTE's body). */
function insertAccessToken(token: IssuedAccessToken): Prisma.Sql {
  return Prisma.sql`
    INSERT INTO access_tokens (jti, grant_id, client_id, subject, audience, scopes, expires_at)
    SELECT ${token.jti}::text, c.grant_id, ${token.clientId}::text,
           ${token.subject}::text, ${token.audience}::text, ${token.scopes}::text[],
           ${token.expiresAt}::timestamptz
      FROM consumed c
    RETURNING 1`;
}

/** A JSON object as the text of a `jsonb` parameter of a raw statement: SQL NULL when there is none. */
function jsonText(value: object | undefined): string | null {
  return value === undefined ? null : JSON.stringify(value);
}
