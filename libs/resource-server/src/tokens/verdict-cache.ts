/**
 * The tokens this resource accepted recently, so a token used again soon costs no verification and no network.
 *
 * Rules kept here:
 * - RFC 7662 Section 4: a cached introspection answer stays "active" after the authorization server revoked the
 *   token, for as long as it is kept; so every verdict is kept at most `ttlSeconds` after it was reached, and
 *   never past the token's `exp`. A TTL of 0 keeps nothing: every request is validated afresh.
 * - The cache is bounded in entries too ({@link BoundedLru}); the key is chosen by the caller (a SHA-256 of the
 *   token, never the token).
 */
import type { AuthInfo } from '../auth/auth-info.js';
import { BoundedLru } from './bounded-lru.js';

interface Verdict {
  readonly auth: AuthInfo;
  /** Milliseconds since the epoch; the verdict is used strictly before. */
  readonly keepUntil: number;
}

/**
 * A bounded, time-limited cache of accepted tokens.
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc7662#section-4 RFC 7662 Section 4}
 */
export class VerdictCache {
  readonly #entries: BoundedLru<string, Verdict>;
  readonly #ttlMs: number;
  readonly #now: () => number;

  /**
   * @param maxEntries how many verdicts are kept at most.
   * @param ttlSeconds how long one verdict is kept at most; 0 keeps none.
   * @param now the clock, in milliseconds since the epoch.
   */
  constructor(maxEntries: number, ttlSeconds: number, now: () => number = () => Date.now()) {
    if (!Number.isFinite(ttlSeconds) || ttlSeconds < 0) {
      throw new RangeError('ttlSeconds must be a non-negative number');
    }
    this.#entries = new BoundedLru(maxEntries);
    this.#ttlMs = ttlSeconds * 1000;
    this.#now = now;
  }

  /** The verdict for `key` while it may still be used; `undefined` once its TTL or the token's `exp` passed. */
  get(key: string): AuthInfo | undefined {
    const verdict = this.#entries.get(key);
    if (!verdict) return undefined;
    if (this.#now() < verdict.keepUntil) return verdict.auth;
    this.#entries.delete(key);
    return undefined;
  }

  /** Remembers that the token of `key` was accepted as `auth`, until the TTL or its `exp`, whichever is first. */
  set(key: string, auth: AuthInfo): void {
    const now = this.#now();
    const keepUntil = Math.min(now + this.#ttlMs, auth.expiresAt * 1000);
    if (keepUntil <= now) return;
    this.#entries.set(key, { auth, keepUntil });
  }
}
