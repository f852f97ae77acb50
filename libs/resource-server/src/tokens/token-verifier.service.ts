/**
 * The single entry point of token validation: shape first, then the cache, then JWT validation or introspection.
 *
 * Rules kept here:
 * - RFC 6750 Section 2.1: a token that is not a `b64token`, or is too long, is rejected before any other work.
 * - OAuth 2.1 Section 5.2, RFC 9068 Section 4, RFC 7662: every accepted token was validated by one of the two
 *   validators; the cache only remembers their verdicts, keyed by a SHA-256 of the token (the token itself is
 *   never kept), and forgets each one after `tokens.cacheTtlSeconds` or at the token's `exp`, whichever comes
 *   first (RFC 7662 Section 4: a revoked token is refused once its verdict is forgotten).
 * - A key source or introspection outage (a network error, a 5xx, a document that is not what it should be) is
 *   `temporarily_unavailable` (503), never `invalid_token`: the token may be perfectly good, and a 401 would send the
 *   client through authorization again for nothing. A token the keys that were fetched cannot verify is
 *   `invalid_token` (RFC 6750 Section 3.1), the authorization server being up.
 * - One validation at a time per token: concurrent requests with the same token wait for the one lookup in flight.
 * - An introspection answer that the token is not active (RFC 7662 Section 2.2) is final for that token (it never
 *   becomes active), so the refusal is remembered like an acceptance, at most {@link REFUSAL_TTL_SECONDS} and never
 *   longer than `tokens.cacheTtlSeconds`: a replayed dead token costs no request to the authorization server. A JWT's
 *   refusal is never remembered (a token under a key not yet fetched becomes valid once the key set is refetched).
 */
import { hash } from 'node:crypto';
import { OAuthError } from '@portcullis/protocol';
import type { AuthInfo } from '../auth/auth-info.js';
import { presents, rememberPresentedToken } from '../exchange/presented-token.js';
import type { ResourceServerConfig } from '../config/resource-server.config.js';
import { checkTokenLength, checkTokenShape, looksLikeJwt } from './checks/token-shape.check.js';
import { AuthorizationServerDirectory } from './discovery/authorization-server-directory.js';
import { UpstreamFetchError } from './discovery/fetch-json.js';
import { KeySetUnavailableError } from './keys/remote-key-set.js';
import { TokenIntrospector } from './introspection/token-introspector.js';
import { JwtAccessTokenValidator } from './jwt-access-token.validator.js';
import { BoundedLru } from './bounded-lru.js';
import { VerdictCache } from './verdict-cache.js';

/** The longest a refusal of an inactive token (introspection) is remembered. */
export const REFUSAL_TTL_SECONDS = 30;

/**
 * {@link TokenVerifier.verify} for a token read from an `Authorization` header (its `b64token` syntax checked by that
 * read): the cached verdict at once, without a promise, else the validation's promise. The request authenticator's
 * default validation; not exported by the package (a caller with a token of unchecked syntax uses `verify`).
 */
export let validatePresented: (verifier: TokenVerifier, token: string) => AuthInfo | Promise<AuthInfo>;

/** {@link TokenVerifier.cached} for a token read from an `Authorization` header, as {@link validatePresented}. */
export let presentedVerdict: (verifier: TokenVerifier, token: string) => AuthInfo | undefined;

/**
 * Validates bearer access tokens for this resource and describes them as {@link AuthInfo}.
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc6750#section-3.1 RFC 6750 Section 3.1}
 * @see {@link https://www.rfc-editor.org/rfc/rfc9068#section-4 RFC 9068 Section 4}
 * @see {@link https://www.rfc-editor.org/rfc/rfc7662#section-2 RFC 7662 Section 2}
 */
export class TokenVerifier {
  readonly #cache: VerdictCache;
  readonly #refusals: BoundedLru<string, { readonly error: OAuthError; readonly until: number }>;
  readonly #refusalTtlMs: number;
  readonly #pending = new Map<string, Promise<AuthInfo>>();
  readonly #jwt: JwtAccessTokenValidator;
  readonly #introspector: TokenIntrospector;

  /** One verifier per resource: its discovery, key sets and verdict cache are shared by every request. */
  constructor(
    private readonly config: ResourceServerConfig,
    directory: AuthorizationServerDirectory = new AuthorizationServerDirectory(config),
  ) {
    this.#jwt = new JwtAccessTokenValidator(config, directory);
    this.#introspector = new TokenIntrospector(config, directory);
    this.#cache = new VerdictCache(config.tokens.cacheMaxEntries, config.tokens.cacheTtlSeconds);
    this.#refusals = new BoundedLru(config.tokens.cacheMaxEntries);
    this.#refusalTtlMs = Math.min(config.tokens.cacheTtlSeconds, REFUSAL_TTL_SECONDS) * 1000;
  }

  /**
   * Validates `token`.
   *
   * @throws OAuthError `invalid_token` for a token this resource must not accept, `temporarily_unavailable` when
   *   the authorization server's keys or introspection endpoint cannot be reached.
   */
  async verify(token: string): Promise<AuthInfo> {
    const key = this.#keyOf(token);
    return this.#cached(key, token) ?? this.#verifyUncached(key, token);
  }

  async #verifyUncached(key: string, token: string): Promise<AuthInfo> {
    const refused = this.#refusals.get(key);
    if (refused && Date.now() < refused.until) throw refused.error;
    let pending = this.#pending.get(key);
    if (!pending) {
      pending = this.validate(token, key).finally(() => this.#pending.delete(key));
      this.#pending.set(key, pending);
    }
    const auth = await pending;
    this.#cache.set(key, auth);
    rememberPresentedToken(auth, token, auth);
    return auth;
  }

  /**
   * The cached verdict on `token`, if there is one: what {@link verify} answers without validating. A token of the
   * wrong shape throws as in {@link verify}.
   */
  cached(token: string): AuthInfo | undefined {
    return this.#cached(this.#keyOf(token), token);
  }

  static {
    validatePresented = (verifier, token) => {
      const key = verifier.#presentedKey(token);
      return verifier.#cached(key, token) ?? verifier.#verifyUncached(key, token);
    };
    presentedVerdict = (verifier, token) => verifier.#cached(verifier.#presentedKey(token), token);
  }

  /** The cache key of a token whose `b64token` syntax was checked where it was read: only its length is checked. */
  #presentedKey(token: string): string {
    checkTokenLength(token, this.config.tokens.maxTokenLength);
    return hash('sha256', token, 'base64url');
  }

  #keyOf(token: string): string {
    checkTokenShape(token, this.config.tokens.maxTokenLength);
    // One-shot (no Hash object): this runs on every request.
    return hash('sha256', token, 'base64url');
  }

  #cached(key: string, token: string): AuthInfo | undefined {
    const cached = this.#cache.get(key);
    // The same verdict serves every request with this token: recorded once, when it was first given for it.
    if (cached && !presents(cached, token)) rememberPresentedToken(cached, token, cached);
    return cached;
  }

  private async validate(token: string, key: string): Promise<AuthInfo> {
    const { mode } = this.config.tokens;
    const introspect = mode === 'introspection' || (mode === 'auto' && !looksLikeJwt(token));
    try {
      return introspect ? await this.#introspector.introspect(token) : await this.#jwt.validate(token);
    } catch (error) {
      if (error instanceof OAuthError) {
        if (introspect && error.code === 'invalid_token' && this.#refusalTtlMs > 0) {
          this.#refusals.set(key, { error, until: Date.now() + this.#refusalTtlMs });
        }
        throw error;
      }
      if (error instanceof UpstreamFetchError) {
        throw new OAuthError(
          'temporarily_unavailable',
          'The authorization server did not answer as needed, so the access token cannot be validated now.',
          {
            cause: error,
            headers: {
              'retry-after': String(
                error instanceof KeySetUnavailableError
                  ? error.retryAfterSeconds
                  : Math.max(1, Math.ceil(this.config.tokens.discovery.failureBackoffMs / 1000)),
              ),
            },
          },
        );
      }
      throw error;
    }
  }
}
