import { Inject, Injectable } from '@nestjs/common';
import type { AccessToken, AuthorizationGrant, RefreshToken } from '@portcullis/persistence';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import {
  AUTHORIZATION_SERVER_OPTIONS,
  type AuthorizationServerOptions,
} from '../config/authorization-server.options.js';
import { SIGNING_ALGORITHM, SigningKeysService } from '../keys/signing-keys.service.js';
import { GrantRepository } from '../tokens/grant.repository.js';
import { SessionRepository } from '../sessions/session.repository.js';

/** An access token this server signed, still within its lifetime, with its issuance record. */
export interface IssuedAccessToken {
  readonly kind: 'access_token';
  readonly payload: JWTPayload & { jti: string; sub: string; exp: number; iat: number };
  readonly record: AccessToken;
  readonly grant?: AuthorizationGrant;
}

/** A refresh token this server issued (consumed or not), with its grant. */
export interface IssuedRefreshToken {
  readonly kind: 'refresh_token';
  readonly record: RefreshToken;
  readonly grant: AuthorizationGrant;
}

export type IssuedToken = IssuedAccessToken | IssuedRefreshToken;

/** The `token_type_hint` values of RFC 7009 2.1 / RFC 7662 2.1 this server knows. */
export type TokenTypeHint = 'access_token' | 'refresh_token';

const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/**
 * Finds what a presented token is, for introspection and revocation: a JWT access token is verified against this
 * server's own keys (signature, `typ: at+jwt`, ES256, `iss`, expiry) and then looked up by `jti`; anything else is
 * looked up as a refresh token by its hash. A token signed by another key or issuer, expired, malformed or never
 * issued is `undefined`: the callers answer it as inactive (RFC 7662 2.2) or ignore it (RFC 7009 2.2).
 * `token_type_hint` only chooses which kind is tried first (RFC 7009 2.1, RFC 7662 2.1).
 *
 * @see https://www.rfc-editor.org/rfc/rfc7662#section-2.2
 * @see https://www.rfc-editor.org/rfc/rfc7009#section-2.1
 * @see https://www.rfc-editor.org/rfc/rfc9068#section-4
 */
@Injectable()
export class IssuedTokens {
  constructor(
    private readonly keys: SigningKeysService,
    private readonly grants: GrantRepository,
    private readonly sessions: SessionRepository,
    @Inject(AUTHORIZATION_SERVER_OPTIONS) private readonly options: AuthorizationServerOptions,
  ) {}

  async find(token: string, hint: string | undefined): Promise<IssuedToken | undefined> {
    const order: TokenTypeHint[] =
      hint === 'refresh_token' ? ['refresh_token', 'access_token'] : ['access_token', 'refresh_token'];
    for (const kind of order) {
      const found =
        kind === 'access_token' ? await this.#accessToken(token) : await this.#refreshToken(token);
      if (found) return found;
    }
    return undefined;
  }

  /**
   * Whether the token can still be used: an access token not revoked, whose grant (if any) is not revoked; a
   * refresh token unconsumed, unexpired, of a live grant, and (without `offline_access`) of a live login session,
   * exactly as the refresh grant decides.
   */
  async isActive(token: IssuedToken, now = new Date()): Promise<boolean> {
    if (token.kind === 'access_token') {
      return token.record.revokedAt === null && (token.grant === undefined || token.grant.revokedAt === null);
    }
    const { record, grant } = token;
    if (record.consumedAt !== null || record.expiresAt <= now) return false;
    if (grant.revokedAt !== null || grant.absoluteExpiresAt <= now) return false;
    if (grant.offlineAccess) return true;
    if (!grant.sessionId) return false;
    const session = await this.sessions.find(grant.sessionId);
    return session !== null && session.revokedAt === null && session.expiresAt > now;
  }

  async #accessToken(token: string): Promise<IssuedAccessToken | undefined> {
    if (!JWT.test(token)) return undefined;
    let payload: JWTPayload;
    try {
      const { kid } = decodeProtectedHeader(token);
      const keys = createLocalJWKSet(await this.keys.verificationKeys(kid));
      ({ payload } = await jwtVerify(token, keys, {
        issuer: this.options.issuer,
        typ: 'at+jwt',
        algorithms: [SIGNING_ALGORITHM],
        requiredClaims: ['jti', 'sub', 'exp', 'iat'],
      }));
    } catch {
      return undefined;
    }
    const { jti, sub, exp, iat } = payload;
    if (
      typeof jti !== 'string' ||
      typeof sub !== 'string' ||
      typeof exp !== 'number' ||
      typeof iat !== 'number'
    ) {
      return undefined;
    }
    const record = await this.grants.findAccessToken(jti);
    if (!record) return undefined;
    const grant = record.grantId ? await this.grants.findGrant(record.grantId) : undefined;
    // A grant that has gone (swept past its absolute lifetime) no longer vouches for its tokens.
    if (grant === null) return undefined;
    return {
      kind: 'access_token',
      payload: { ...payload, jti, sub, exp, iat },
      record,
      ...(grant ? { grant } : {}),
    };
  }

  async #refreshToken(token: string): Promise<IssuedRefreshToken | undefined> {
    if (JWT.test(token)) return undefined;
    const record = await this.grants.findRefreshToken(token);
    if (!record) return undefined;
    const grant = await this.grants.findGrant(record.grantId);
    return grant ? { kind: 'refresh_token', record, grant } : undefined;
  }
}
