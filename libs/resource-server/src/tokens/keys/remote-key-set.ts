/**
 * One authorization server's JWK set (its `jwks_uri`), as the resource server keeps it.
 *
 * Rules kept here:
 * - RFC 7517 Section 5 and RFC 8414 Section 2 (`jwks_uri`): the keys are fetched from the document, with a timeout, a
 *   size limit and no redirects (`fetch-json.ts`); the JSON Web Keys are jose's to parse and match.
 * - RFC 9111 Section 4.2.1: the keys are fetched again once older than the response's freshness lifetime
 *   (`Cache-Control: max-age`; Portcullis's `JWKS_MAX_AGE`), within `cooldownMs` and
 *   `cacheMaxAgeMs` (`cacheMaxAgeMs` without one); while that fetch fails, the keys already held keep
 *   verifying (stale-if-error), so an authorization server that is away does not make good tokens fail, for
 *   `staleIfErrorMs` at most (RFC 5861's stale-if-error, bounded: a withdrawn key must stop verifying some time).
 *   Past that bound they are fetched again before anything verifies, and a fetch that failed is not tried again for
 *   `failureBackoffMs`: meanwhile every request is answered "unavailable" at once, so an authorization server that is
 *   away gets one request per backoff, never one per token.
 * - Neither the cooldown, the cache lifetime nor the failure backoff is ever under {@link MIN_REFETCH_INTERVAL_MS},
 *   whatever the configuration or the response says (`cooldownMs: 0`, `Cache-Control: max-age=0` or `no-store`):
 *   otherwise every token under an unknown `kid`, or every request, would cost a fetch.
 * - A token naming a `kid` the set does not hold (jose's `JWKSNoMatchingKey`) is `invalid_token` (401) once the key is
 *   known to be absent, and the key set is fetched again to tell only when it may be, at most once per
 *   `cooldownMs` (as jose's `createRemoteJWKSet` `cooldownDuration`: a flood of made-up `kid`s costs one fetch per
 *   cooldown, never one per token). The key is absent when the set held was fetched after the token was issued, or
 *   within the cooldown, or when a set fetched now lacks it: an authorization server publishes a key before it signs
 *   with it, for at least the cache lifetime and the cooldown of its resource servers (Portcullis's `keys rotate`
 *   stages the key for that long), so a good token's key is in every set fetched since its key was published, and
 *   a set older than that is past the cooldown and fetched again. The answer is "unavailable" (503) only when the
 *   set must be fetched to tell and cannot be (a network error, a 5xx, a document that is not a JWK set).
 */
import { cacheLifetimeSeconds } from '@portcullis/protocol';
import { createLocalJWKSet, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import { fetchJson, UpstreamFetchError } from '../discovery/fetch-json.js';

/**
 * The least time between two fetches of one key set, in milliseconds: the floor of the refetch cooldown, the cache
 * lifetime and the backoff after a failed fetch. A second bounds the fetches a flood of tokens can cause to one per second per key set, and stays
 * well under any activation delay an authorization server keeps before signing with a published key.
 */
export const MIN_REFETCH_INTERVAL_MS = 1_000;

/** Timings of a {@link RemoteKeySet}, in milliseconds. */
export interface RemoteKeySetOptions {
  /** At least {@link MIN_REFETCH_INTERVAL_MS} is kept, whatever is given. */
  readonly cooldownMs: number;
  /** At least {@link MIN_REFETCH_INTERVAL_MS} is kept, whatever is given. */
  readonly cacheMaxAgeMs: number;
  readonly timeoutMs: number;
  /** After a failed fetch, how long before another may be tried; at least {@link MIN_REFETCH_INTERVAL_MS}. */
  readonly failureBackoffMs: number;
  /**
   * How long past `cacheMaxAgeMs` the keys held keep verifying while they cannot be fetched again; after that the
   * resource answers 503 (a key the authorization server withdrew, after a compromise, must not verify forever
   * because the authorization server cannot be reached).
   */
  readonly staleIfErrorMs: number;
}

/** A key set fetch refused for now: it may be tried again after `retryAfterSeconds`. */
export class KeySetUnavailableError extends UpstreamFetchError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'KeySetUnavailableError';
  }
}

interface Held {
  readonly getKey: JWTVerifyGetKey;
  readonly fetchedAt: number;
  /** How long these keys are fresh: the response's lifetime within the configured bounds. */
  readonly maxAgeMs: number;
}

/**
 * The keys of one `jwks_uri`: fetched on first use, refreshed with stale-if-error, refetched for an unknown `kid`
 * at most once per cooldown.
 *
 * @see https://openid.net/specs/openid-connect-core-1_0.html#RotateSigKeys
 * @see https://www.rfc-editor.org/rfc/rfc7517#section-5
 */
export class RemoteKeySet {
  #held: Held | undefined;
  #pending: Promise<Held> | undefined;
  #failedUntil = 0;
  readonly #cooldownMs: number;
  readonly #cacheMaxAgeMs: number;
  readonly #failureBackoffMs: number;

  constructor(
    readonly url: string,
    private readonly options: RemoteKeySetOptions,
  ) {
    this.#cooldownMs = Math.max(MIN_REFETCH_INTERVAL_MS, options.cooldownMs);
    this.#cacheMaxAgeMs = Math.max(MIN_REFETCH_INTERVAL_MS, options.cacheMaxAgeMs);
    this.#failureBackoffMs = Math.max(MIN_REFETCH_INTERVAL_MS, options.failureBackoffMs);
  }

  /**
   * The keys to verify with now.
   *
   * @throws UpstreamFetchError when no keys were ever fetched and they cannot be now.
   */
  async keys(): Promise<JWTVerifyGetKey> {
    const held = this.#held;
    if (!held) {
      const now = Date.now();
      if (this.#failedUntil > now) {
        throw new KeySetUnavailableError(
          `${this.url} failed moments ago`,
          Math.max(1, Math.ceil((this.#failedUntil - now) / 1000)),
        );
      }
      return (await this.#fetch()).getKey;
    }
    const now = Date.now();
    const age = now - held.fetchedAt;
    if (age >= held.maxAgeMs + this.options.staleIfErrorMs) {
      // Too old to trust without the authorization server's word: fetched now, or nothing verifies. Not while the
      // last fetch failed moments ago: each request would be one more fetch of a key set that is away.
      if (this.#failedUntil > now) {
        throw new KeySetUnavailableError(
          `the keys of ${this.url} are too old to use, and fetching them again failed moments ago`,
          Math.max(1, Math.ceil((this.#failedUntil - now) / 1000)),
        );
      }
      try {
        return (await this.#fetch()).getKey;
      } catch (error) {
        throw new KeySetUnavailableError(
          `the keys of ${this.url} are too old to use and cannot be fetched again`,
          Math.max(1, Math.ceil(this.#failureBackoffMs / 1000)),
          { cause: error },
        );
      }
    }
    if (age >= held.maxAgeMs && now >= this.#failedUntil) {
      // Stale: fetched again, and meanwhile (or if that fails) the keys held keep verifying.
      this.#fetch().catch(() => undefined);
    }
    return held.getKey;
  }

  /**
   * For a token whose `kid` the keys held do not have: `absent` when the set held already tells (fetched after the
   * token was issued, or within the cooldown), else the set is fetched again and `refreshed` (verify once more with
   * {@link keys}; a key still missing then is absent).
   *
   * @param issuedAtMs the latest the token can have been issued (its `iat` and the clock skew), in milliseconds.
   * @throws KeySetUnavailableError when the set must be fetched again to tell and the last fetch failed moments ago,
   *   or this one does.
   */
  async unknownKey(issuedAtMs: number): Promise<'refreshed' | 'absent'> {
    const now = Date.now();
    const fetchedAt = this.#held?.fetchedAt;
    if (fetchedAt !== undefined && (fetchedAt >= issuedAtMs || now - fetchedAt < this.#cooldownMs)) {
      return 'absent';
    }
    if (this.#failedUntil > now) {
      throw new KeySetUnavailableError(
        `${this.url} failed moments ago, and the key may have been published since it was fetched`,
        Math.max(1, Math.ceil((this.#failedUntil - now) / 1000)),
      );
    }
    try {
      await this.#fetch();
    } catch (error) {
      throw new KeySetUnavailableError(
        `${this.url} could not be fetched again`,
        Math.max(1, Math.ceil(this.#failureBackoffMs / 1000)),
        { cause: error },
      );
    }
    return 'refreshed';
  }

  /** One fetch at a time: concurrent callers share it. */
  #fetch(): Promise<Held> {
    this.#pending ??= this.#load().finally(() => {
      this.#pending = undefined;
    });
    return this.#pending;
  }

  /**
   * The key set's freshness lifetime in milliseconds: what the authorization server says, never past
   * `cacheMaxAgeMs`, and never under `cooldownMs` (a `no-store` key set must not cost a fetch per request); both
   * are at least {@link MIN_REFETCH_INTERVAL_MS}.
   */
  #freshness(headers: Headers): number {
    const maxCacheSeconds = this.#cacheMaxAgeMs / 1000;
    const seconds = cacheLifetimeSeconds(Object.fromEntries(headers), {
      minCacheSeconds: Math.min(this.#cooldownMs / 1000, maxCacheSeconds),
      maxCacheSeconds,
      defaultCacheSeconds: maxCacheSeconds,
    });
    return seconds * 1000;
  }

  async #load(): Promise<Held> {
    try {
      const result = await fetchJson(this.url, { timeoutMs: this.options.timeoutMs });
      if (!('body' in result)) throw new UpstreamFetchError(`${this.url} answered ${result.status}`);
      const body = result.body as Partial<JSONWebKeySet> | null;
      if (typeof body !== 'object' || body === null || !Array.isArray(body.keys)) {
        throw new UpstreamFetchError(`${this.url} is not a JWK set`);
      }
      const held = {
        getKey: createLocalJWKSet(body as JSONWebKeySet),
        fetchedAt: Date.now(),
        maxAgeMs: this.#freshness(result.headers),
      };
      this.#held = held;
      this.#failedUntil = 0;
      return held;
    } catch (error) {
      this.#failedUntil = Date.now() + this.#failureBackoffMs;
      throw error instanceof UpstreamFetchError
        ? error
        : new UpstreamFetchError(`${this.url} could not be used`, { cause: error });
    }
  }
}
