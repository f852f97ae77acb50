import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import type { AuthInfo } from '../auth/auth-info.js';
import { VerdictCache } from './verdict-cache.js';

const T0 = 1_750_000_000_000; // ms since the epoch, on a whole second

function authExpiringAt(expiresAt: number): AuthInfo {
  return {
    subject: 'alice',
    clientId: 'client-1',
    scopes: ['notes:read'],
    audience: ['https://mcp.example.com/mcp'],
    issuer: 'https://auth.example.com',
    expiresAt,
    validatedBy: 'introspection',
  };
}

/** A cache on a clock the test moves. */
function cacheAt(ttlSeconds: number, maxEntries = 10) {
  let now = T0;
  const cache = new VerdictCache(maxEntries, ttlSeconds, () => now);
  return {
    cache,
    at(ms: number) {
      now = T0 + ms;
    },
  };
}

describe('VerdictCache', () => {
  it('keeps a verdict for its TTL, then forgets it, however far away exp is', () => {
    const { cache, at } = cacheAt(30);
    const auth = authExpiringAt(T0 / 1000 + 3600);
    cache.set('token', auth);
    at(29_999);
    expect(cache.get('token')).toBe(auth);
    at(30_000);
    expect(cache.get('token')).toBeUndefined();
    at(0);
    expect(cache.get('token')).toBeUndefined(); // forgotten, not merely hidden
  });

  it('never keeps a verdict past the token exp, however long the TTL', () => {
    const { cache, at } = cacheAt(86_400);
    const auth = authExpiringAt(T0 / 1000 + 5);
    cache.set('token', auth);
    at(4_999);
    expect(cache.get('token')).toBe(auth);
    at(5_000);
    expect(cache.get('token')).toBeUndefined();
  });

  it('keeps nothing with a TTL of 0', () => {
    const { cache } = cacheAt(0);
    cache.set('token', authExpiringAt(T0 / 1000 + 3600));
    expect(cache.get('token')).toBeUndefined();
  });

  it('keeps nothing for a token that has already expired', () => {
    const { cache } = cacheAt(30);
    cache.set('token', authExpiringAt(T0 / 1000));
    expect(cache.get('token')).toBeUndefined();
  });

  it('still holds at most maxEntries verdicts, dropping the least recently used', () => {
    const { cache } = cacheAt(30, 2);
    const auth = authExpiringAt(T0 / 1000 + 3600);
    cache.set('a', auth);
    cache.set('b', auth);
    cache.set('c', auth);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('b')).toBe(auth);
    expect(cache.get('c')).toBe(auth);
  });

  it('refuses a negative TTL', () => {
    expect(() => new VerdictCache(10, -1)).toThrow(RangeError);
  });

  it('answers a verdict exactly while less than min(TTL, time to exp) has passed since it was reached', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 120 }), // TTL, s
        fc.integer({ min: -10, max: 300 }), // exp - T0, s
        fc.array(fc.integer({ min: 0, max: 400_000 }), { minLength: 1, maxLength: 5 }), // reads, ms after T0
        (ttlSeconds, expiresIn, reads) => {
          const { cache, at } = cacheAt(ttlSeconds);
          const auth = authExpiringAt(T0 / 1000 + expiresIn);
          cache.set('token', auth);
          const bound = Math.min(ttlSeconds * 1000, expiresIn * 1000);
          let forgotten = false;
          for (const read of [...reads].sort((a, b) => a - b)) {
            at(read);
            forgotten ||= read >= bound;
            expect(cache.get('token')).toBe(forgotten ? undefined : auth);
          }
        },
      ),
    );
  });
});
