import { describe, expect, it } from '@jest/globals';
import { MetadataDocumentCache } from './metadata-document.cache.js';

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('MetadataDocumentCache', () => {
  it('reuses a value for its lifetime and loads it again afterwards', async () => {
    let now = 0;
    let loads = 0;
    const cache = new MetadataDocumentCache<number>(10, () => now);
    const load = async () => ({ value: ++loads, lifetimeSeconds: 60 });
    expect(await cache.get('a', load)).toBe(1);
    now = 59_999;
    expect(await cache.get('a', load)).toBe(1);
    now = 60_000;
    expect(await cache.get('a', load)).toBe(2);
  });

  it('shares one in-flight load between concurrent callers', async () => {
    const cache = new MetadataDocumentCache<string>(10);
    const pending = deferred<{ value: string; lifetimeSeconds: number }>();
    let loads = 0;
    const load = () => {
      loads += 1;
      return pending.promise;
    };
    const all = Promise.all([cache.get('a', load), cache.get('a', load), cache.get('a', load)]);
    pending.resolve({ value: 'document', lifetimeSeconds: 60 });
    expect(await all).toEqual(['document', 'document', 'document']);
    expect(loads).toBe(1);
  });

  it('caches no failure: every waiter sees it, and the next lookup loads again', async () => {
    const cache = new MetadataDocumentCache<string>(10);
    const pending = deferred<{ value: string; lifetimeSeconds: number }>();
    const first = cache.get('a', () => pending.promise);
    const second = cache.get('a', () => pending.promise);
    pending.reject(new Error('refused'));
    await expect(first).rejects.toThrow('refused');
    await expect(second).rejects.toThrow('refused');
    expect(cache.size).toBe(0);
    expect(await cache.get('a', async () => ({ value: 'later', lifetimeSeconds: 60 }))).toBe('later');
  });

  it('loads an evicted value again before its lifetime ends, and leaves the others', async () => {
    const cache = new MetadataDocumentCache<string>(10);
    const load = (value: string) => async () => ({ value, lifetimeSeconds: 60 });
    await cache.get('a', load('a1'));
    await cache.get('b', load('b1'));
    cache.evict('a');
    expect(await cache.get('a', load('a2'))).toBe('a2');
    expect(await cache.get('b', load('b2'))).toBe('b1');
  });

  it('keeps at most its bound, dropping the least recently used', async () => {
    const cache = new MetadataDocumentCache<string>(2);
    const load = (value: string) => async () => ({ value, lifetimeSeconds: 60 });
    await cache.get('a', load('a1'));
    await cache.get('b', load('b1'));
    await cache.get('a', load('a2'));
    await cache.get('c', load('c1'));
    expect(cache.size).toBe(2);
    expect(await cache.get('a', load('a3'))).toBe('a1');
    expect(await cache.get('b', load('b2'))).toBe('b2');
  });
});
