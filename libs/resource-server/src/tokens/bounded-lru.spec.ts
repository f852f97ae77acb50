import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { BoundedLru } from './bounded-lru.js';

describe('BoundedLru', () => {
  it('evicts the least recently used entry once it holds more than its bound', () => {
    const lru = new BoundedLru<string, number>(2);
    lru.set('a', 1);
    lru.set('b', 2);
    expect(lru.get('a')).toBe(1); // a is now the most recently used
    lru.set('c', 3);
    expect(lru.get('b')).toBeUndefined();
    expect(lru.get('a')).toBe(1);
    expect(lru.get('c')).toBe(3);
    expect(lru.size).toBe(2);
  });

  it('never holds more entries than its bound, whatever the sequence of writes', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.array(fc.integer({ min: 0, max: 20 })),
        (bound, keys) => {
          const lru = new BoundedLru<number, number>(bound);
          for (const key of keys) lru.set(key, key);
          expect(lru.size).toBeLessThanOrEqual(bound);
          // The most recent write is always still there.
          if (keys.length > 0) expect(lru.get(keys[keys.length - 1]!)).toBe(keys[keys.length - 1]);
        },
      ),
    );
  });

  it('keeps an entry read often, among many written once, past the bound of writes after it', () => {
    const lru = new BoundedLru<string, number>(100);
    lru.set('hot', 0);
    for (let i = 0; i < 1_000; i++) {
      lru.set(`cold-${i}`, i);
      expect(lru.get('hot')).toBe(0);
    }
    expect(lru.size).toBe(100);
    expect(lru.get('cold-899')).toBeUndefined();
    expect(lru.get('cold-999')).toBe(999);
  });

  it('refuses a bound that is not a positive integer', () => {
    expect(() => new BoundedLru(0)).toThrow(RangeError);
    expect(() => new BoundedLru(1.5)).toThrow(RangeError);
  });
});
