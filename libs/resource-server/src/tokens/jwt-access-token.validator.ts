/**
 * JWT access token validation (RFC 9068 Section 4), cheapest rules first: structure, then header, then claims,
 * all on the decoded token; only a token that passes them all costs a key lookup and a signature check.
 *
 * Checks, in order (each in its own file under `checks/`):
 * 1. `jwt-structure`: three base64url segments, JSON object header and claims.
 * 2. `jwt-algorithm`: `alg` on the allow-list (never `none`, never `HS*`).
 * 3. `jwt-type`: `typ` is `at+jwt`.
 * 4. `jwt-key-reference`: no key or key URL of the token's own (`jwk`, `jku`, `x5c`, `x5u`); `kid` a string.
 * 5. `issuer`: `iss` is a trusted authorization server.
 * 6. `audience`: `aud` contains this resource's canonical URI.
 * 7. `lifetime`: `exp` present and not passed, `nbf` and `iat` not in the future (with clock skew).
 * 8. `subject-and-client`, `jwt-identifiers`: `sub`, `client_id`, `iat`, `jti`, a valid `scope`.
 * 9. `confirmation`: `cnf`, when present, is an object (RFC 7800 Section 3.1); it becomes the `AuthInfo`'s
 *    confirmation, which the guard checks a proof of possession against (RFC 9449 Section 7).
 * 10. The signature, with the issuer's JWK set (discovered from its metadata), jose re-applying 2-7 to the
 *    verified payload as a second line of defence. A `kid` the set does not hold is `invalid_token` once the set
 *    tells it is absent, fetched again first when it may be (at most once per cooldown). A token without `kid`
 *    (RFC 7515 Section 4.1.4: optional) is tried with each key of the set that its `alg` could use (jose's
 *    `JWKSMultipleMatchingKeys` candidates: the right `kty`, `alg`, curve and `use`), at most
 *    {@link MAX_CANDIDATE_KEYS}, since an authorization server publishes two keys while it rotates (OpenID Connect
 *    Core 10.1.1); with more it is `invalid_token` untried (a token must not cost a signature check per published
 *    key). One that no key held verifies is treated as a token under an unknown `kid`. Only a key set that cannot
 *    be fetched is a 503 (`keys/remote-key-set.ts`).
 */
import {
  jwtVerify,
  type CryptoKey,
  type JWTPayload,
  type JWTVerifyGetKey,
  type JWTVerifyOptions,
} from 'jose';
import { parseScope } from '@portcullis/protocol';
import type { AuthInfo } from '../auth/auth-info.js';
import type { ResourceServerConfig } from '../config/resource-server.config.js';
import { audiencesOf, checkAudience } from './checks/audience.check.js';
import { checkConfirmation, confirmationOf } from './checks/confirmation.check.js';
import { checkIssuer } from './checks/issuer.check.js';
import { checkAlgorithm } from './checks/jwt-algorithm.check.js';
import { checkJwtIdentifiers } from './checks/jwt-identifiers.check.js';
import { checkKeyReference } from './checks/jwt-key-reference.check.js';
import { decodeJwtStructure } from './checks/jwt-structure.check.js';
import { checkAccessTokenType } from './checks/jwt-type.check.js';
import { checkLifetime } from './checks/lifetime.check.js';
import { checkSubjectAndClient } from './checks/subject-and-client.check.js';
import { invalidToken, type TokenCheck, type TokenCheckContext } from './checks/token-check.js';
import { AuthorizationServerDirectory } from './discovery/authorization-server-directory.js';
import { UpstreamFetchError } from './discovery/fetch-json.js';
import { RemoteKeySet } from './keys/remote-key-set.js';

const HEADER_CHECKS: readonly TokenCheck[] = [checkAlgorithm, checkAccessTokenType, checkKeyReference];
const CLAIM_CHECKS: readonly TokenCheck[] = [
  checkIssuer,
  checkAudience,
  checkLifetime,
  checkSubjectAndClient,
  checkJwtIdentifiers,
  checkConfirmation,
];

// jose error codes that say something about the token itself; every other failure (no keys, a timeout, a broken
// JWK set) says the key source is unavailable, which is not the client's fault and must not read as a bad token.
/**
 * How many keys a token without `kid` is tried with: the two of a rotation's overlap, and one more (a key staged
 * while the previous one is still published).
 */
export const MAX_CANDIDATE_KEYS = 3;

/** jose's error for a token without `kid` that several keys of the set could verify; it iterates them. */
const MULTIPLE_MATCHING_KEYS = 'ERR_JWKS_MULTIPLE_MATCHING_KEYS';
const SIGNATURE_FAILED = 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED';

/** Refusal of a token without `kid` that more than {@link MAX_CANDIDATE_KEYS} keys could verify. */
class TooManyCandidateKeys extends Error {
  readonly code = 'ERR_PORTCULLIS_TOO_MANY_CANDIDATE_KEYS';
}

const codeOf = (error: unknown): unknown => (error as { code?: unknown } | null)?.code;

const TOKEN_ERROR_CODES = new Set([
  'ERR_PORTCULLIS_TOO_MANY_CANDIDATE_KEYS',
  'ERR_JWT_CLAIM_VALIDATION_FAILED',
  'ERR_JWT_EXPIRED',
  'ERR_JWT_INVALID',
  'ERR_JWS_INVALID',
  'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
  'ERR_JOSE_ALG_NOT_ALLOWED',
  'ERR_JOSE_NOT_SUPPORTED',
  'ERR_JWKS_NO_MATCHING_KEY',
  'ERR_JWKS_MULTIPLE_MATCHING_KEYS',
]);

/**
 * Validates JWT access tokens against the trusted issuers' remote JWK sets.
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc9068#section-4 RFC 9068 Section 4}
 * @see {@link https://www.rfc-editor.org/rfc/rfc8725 RFC 8725 (JWT best current practices)}
 */
export class JwtAccessTokenValidator {
  // One key set per jwks_uri: the keys, stale-if-error refreshes, the cooldown between refetches for an unknown
  // `kid`, and the coalescing of concurrent fetches (keys/remote-key-set.ts).
  readonly #keySets = new Map<string, RemoteKeySet>();

  constructor(
    private readonly config: ResourceServerConfig,
    private readonly directory: AuthorizationServerDirectory,
  ) {}

  /**
   * Validates a JWT access token and describes it.
   *
   * @throws OAuthError `invalid_token` for a token that breaks any rule; `UpstreamFetchError` when the issuer's
   *   keys cannot be obtained.
   */
  async validate(token: string): Promise<AuthInfo> {
    const { header, claims } = decodeJwtStructure(token);
    const context = this.context();
    for (const check of HEADER_CHECKS) check(header, context);
    for (const check of CLAIM_CHECKS) check(claims, context);

    const issuer = claims['iss'] as string;
    const keySet = await this.keySet(issuer);
    let payload: JWTPayload;
    try {
      payload = await this.verify(token, await keySet.keys(), issuer);
    } catch (error) {
      // A kid the set does not hold, or no kid and no key held that verifies the signature: a key the set does not
      // hold, possibly.
      const unknownKey =
        codeOf(error) === 'ERR_JWKS_NO_MATCHING_KEY' ||
        (codeOf(error) === SIGNATURE_FAILED && header['kid'] === undefined);
      if (!unknownKey) throw this.failure(error, issuer);
      // Absent if the set tells (fetched after the token was issued, or within the cooldown), else fetched again,
      // once, to tell. The latest the token can have been issued, on this server's clock: `iat` is in whole
      // seconds, and the clocks may differ by the skew allowed.
      const issuedAt =
        typeof claims['iat'] === 'number'
          ? (claims['iat'] + 1 + this.config.tokens.clockSkewSeconds) * 1000
          : Number.POSITIVE_INFINITY;
      if ((await keySet.unknownKey(issuedAt)) === 'absent') throw this.failure(error, issuer);
      try {
        payload = await this.verify(token, await keySet.keys(), issuer);
      } catch (again) {
        // A set fetched just now that still lacks the key: the key does not exist (invalid_token).
        throw this.failure(again, issuer);
      }
    }
    return toAuthInfo(payload, issuer);
  }

  /**
   * Verifies with the key of the token's `kid`, or, for a token without one that several keys could verify, with
   * each of them (at most {@link MAX_CANDIDATE_KEYS}) until one does.
   */
  private async verify(token: string, keys: JWTVerifyGetKey, issuer: string): Promise<JWTPayload> {
    try {
      return await this.verifyWith(token, keys, issuer);
    } catch (error) {
      if (codeOf(error) !== MULTIPLE_MATCHING_KEYS || !isAsyncIterable(error)) throw error;
      const candidates: CryptoKey[] = [];
      for await (const key of error as AsyncIterable<CryptoKey>) {
        candidates.push(key);
        if (candidates.length > MAX_CANDIDATE_KEYS) throw new TooManyCandidateKeys();
      }
      let failure: unknown = error;
      for (const key of candidates) {
        try {
          return await this.verifyWith(token, key, issuer);
        } catch (attempt) {
          // Another key's signature: try the next. Anything else (the claims, once a key verified) is the answer.
          if (codeOf(attempt) !== SIGNATURE_FAILED) throw attempt;
          failure = attempt;
        }
      }
      throw failure;
    }
  }

  private async verifyWith(
    token: string,
    keys: JWTVerifyGetKey | CryptoKey,
    issuer: string,
  ): Promise<JWTPayload> {
    const options: JWTVerifyOptions = {
      algorithms: [...this.config.tokens.algorithms],
      typ: 'at+jwt',
      issuer,
      audience: this.config.resource,
      clockTolerance: this.config.tokens.clockSkewSeconds,
      requiredClaims: ['exp', 'iat', 'sub', 'jti'],
    };
    const { payload } =
      typeof keys === 'function'
        ? await jwtVerify(token, keys, options)
        : await jwtVerify(token, keys, options);
    return payload;
  }

  /** A verification failure as the answer it deserves: `invalid_token` when it is the token's fault, else 503. */
  private failure(error: unknown, issuer: string): Error {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && TOKEN_ERROR_CODES.has(code)) {
      return invalidToken(
        code === 'ERR_JWKS_NO_MATCHING_KEY'
          ? 'The access token is signed with a key this resource does not know.'
          : code === 'ERR_PORTCULLIS_TOO_MANY_CANDIDATE_KEYS'
            ? `The access token names no key (kid), and more than ${MAX_CANDIDATE_KEYS} published keys could ` +
              'verify it.'
            : 'The access token signature or claims could not be verified.',
      );
    }
    return error instanceof UpstreamFetchError
      ? error
      : new UpstreamFetchError(`the keys of ${issuer} could not be used`, { cause: error });
  }

  private context(): TokenCheckContext {
    return {
      resource: this.config.resource,
      issuers: this.config.authorizationServers,
      algorithms: this.config.tokens.algorithms,
      clockSkewSeconds: this.config.tokens.clockSkewSeconds,
      now: Math.floor(Date.now() / 1000),
    };
  }

  private async keySet(issuer: string): Promise<RemoteKeySet> {
    const { jwksUri } = await this.directory.lookup(issuer);
    if (!jwksUri) throw new UpstreamFetchError(`${issuer} publishes no jwks_uri`);
    let keySet = this.#keySets.get(jwksUri);
    if (!keySet) {
      keySet = new RemoteKeySet(jwksUri, {
        ...this.config.tokens.jwks,
        failureBackoffMs: this.config.tokens.discovery.failureBackoffMs,
      });
      this.#keySets.set(jwksUri, keySet);
    }
    return keySet;
  }
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function';
}

function toAuthInfo(payload: JWTPayload, issuer: string): AuthInfo {
  const scope = payload['scope'];
  const confirmation = confirmationOf(payload);
  return Object.freeze({
    subject: payload.sub as string,
    clientId: payload['client_id'] as string,
    scopes: Object.freeze(parseScope(typeof scope === 'string' ? scope : undefined)),
    audience: Object.freeze(audiencesOf(payload) ?? []),
    issuer,
    expiresAt: payload.exp as number,
    ...(typeof payload.jti === 'string' ? { tokenId: payload.jti } : {}),
    ...(confirmation ? { confirmation } : {}),
    validatedBy: 'jwt' as const,
  });
}
