/**
 * One authorization server's JWK set (its `jwks_uri`), as the resource server keeps it.
 *
 * Rules kept here:
 * - RFC 7517 Section 5 and RFC 8414 Section 2 (`jwks_uri`): the keys are fetched from the document, with a timeout, a
 *   size limit and no redirects (`fetch-json.ts`); the JSON Web Keys are jose's to parse and match.
 * - The keys are fetched again when older than `cacheMaxAgeMs`; while that fetch fails, the keys already held keep
 *   verifying (stale-if-error), so an authorization server that is away does not make good tokens fail, for
 *   `staleIfErrorMs` at most (RFC 5861's stale-if-error, bounded: a withdrawn key must stop verifying some time).
 * - A token naming a `kid` the set does not hold may be signed with a key the authorization server published after
 *   the last fetch (a rotation): the set is fetched again, at most once per `cooldownMs` (a flood of tokens with
 *   made-up `kid`s costs one fetch per cooldown, never one per token). Until a fetch tells, the answer is "unavailable"
 *   (503, the token may be good: a 401 would make the client throw it away), never "invalid". The key is known to be
 *   absent only when a set fetched at least `cooldownMs` after the token was issued lacks it: by then the
 *   authorization server publishes every key it signs with.
 */
import { createLocalJWKSet, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import { fetchJson, UpstreamFetchError } from '../discovery/fetch-json.js';

/** Timings of a {@link RemoteKeySet}, in milliseconds. */
export interface RemoteKeySetOptions {
  readonly cooldownMs: number;
  readonly cacheMaxAgeMs: number;
  readonly timeoutMs: number;
  /** After a failed fetch, how long before another may be tried. */
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
}

/**
 * The keys of one `jwks_uri`: fetched on first use, refreshed with stale-if-error, refetched for an unknown `kid`
 * at most once per cooldown.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7517#section-5
 */
export class RemoteKeySet {
  #held: Held | undefined;
  #pending: Promise<Held> | undefined;
  #failedUntil = 0;

  constructor(
    readonly url: string,
    private readonly options: RemoteKeySetOptions,
  ) {}

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
    const age = Date.now() - held.fetchedAt;
    if (age >= this.options.cacheMaxAgeMs + this.options.staleIfErrorMs) {
      // Too old to trust without the authorization server's word: fetched now, or nothing verifies.
      try {
        return (await this.#fetch()).getKey;
      } catch (error) {
        throw new KeySetUnavailableError(
          `the keys of ${this.url} are too old to use and cannot be fetched again`,
          Math.max(1, Math.ceil(this.options.failureBackoffMs / 1000)),
          { cause: error },
        );
      }
    }
    if (age >= this.options.cacheMaxAgeMs && Date.now() >= this.#failedUntil) {
      // Stale: fetched again, and meanwhile (or if that fails) the keys held keep verifying.
      this.#fetch().catch(() => undefined);
    }
    return held.getKey;
  }

  /**
   * For a token whose `kid` the keys held do not have: `refreshed` when the set was fetched again (verify once more
   * with {@link keys}), `absent` when a set fetched late enough after the token was issued lacks the key.
   *
   * @param issuedAtMs the latest the token can have been issued (its `iat` and the clock skew), in milliseconds.
   * @throws KeySetUnavailableError when it cannot be told now: the last fetch is within the cooldown, or failed.
   */
  async unknownKey(issuedAtMs: number): Promise<'refreshed' | 'absent'> {
    const now = Date.now();
    const fetchedAt = this.#held?.fetchedAt ?? 0;
    if (fetchedAt >= issuedAtMs + this.options.cooldownMs) return 'absent';
    const nextFetch = Math.max(fetchedAt + this.options.cooldownMs, this.#failedUntil);
    if (nextFetch > now) {
      throw new KeySetUnavailableError(
        `the key is not in ${this.url} as fetched, and it may be fetched again only after the cooldown`,
        Math.max(1, Math.ceil((nextFetch - now) / 1000)),
      );
    }
    try {
      await this.#fetch();
    } catch (error) {
      throw new KeySetUnavailableError(
        `${this.url} could not be fetched again`,
        Math.max(1, Math.ceil(this.options.failureBackoffMs / 1000)),
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

  async #load(): Promise<Held> {
    try {
      const result = await fetchJson(this.url, { timeoutMs: this.options.timeoutMs });
      if (!('body' in result)) throw new UpstreamFetchError(`${this.url} answered ${result.status}`);
      const body = result.body as Partial<JSONWebKeySet> | null;
      if (typeof body !== 'object' || body === null || !Array.isArray(body.keys)) {
        throw new UpstreamFetchError(`${this.url} is not a JWK set`);
      }
      const held = { getKey: createLocalJWKSet(body as JSONWebKeySet), fetchedAt: Date.now() };
      this.#held = held;
      this.#failedUntil = 0;
      return held;
    } catch (error) {
      this.#failedUntil = Date.now() + this.options.failureBackoffMs;
      throw error instanceof UpstreamFetchError
        ? error
        : new UpstreamFetchError(`${this.url} could not be used`, { cause: error });
    }
  }
}
