import { describe, expect, it } from '@jest/globals';
import { cacheLifetimeSeconds } from './cache-lifetime.js';

const BOUNDS = { minCacheSeconds: 60, maxCacheSeconds: 86_400 };

describe('cacheLifetimeSeconds', () => {
  it.each([
    ['max-age', { 'cache-control': 'max-age=600' }, 600],
    ['max-age among other directives', { 'cache-control': 'public, max-age=900, must-revalidate' }, 900],
    ['s-maxage over max-age (a shared cache)', { 'cache-control': 'max-age=600, s-maxage=1200' }, 1200],
    ['max-age less Age', { 'cache-control': 'max-age=600', age: '100' }, 500],
    [
      'max-age over Expires',
      { 'cache-control': 'max-age=300', expires: 'Thu, 01 Jan 2099 00:00:00 GMT' },
      300,
    ],
    [
      'Expires minus Date',
      { expires: 'Wed, 21 Oct 2026 07:30:00 GMT', date: 'Wed, 21 Oct 2026 07:20:00 GMT' },
      600,
    ],
  ])('follows %s', (_name, headers, seconds) => {
    expect(cacheLifetimeSeconds(headers, BOUNDS)).toBe(seconds);
  });

  it.each([
    ['no-store', { 'cache-control': 'no-store, max-age=600' }],
    ['no-cache', { 'cache-control': 'no-cache' }],
    ['max-age=0', { 'cache-control': 'max-age=0' }],
    ['a malformed max-age', { 'cache-control': 'max-age=soon' }],
    ['an Expires in the past', { expires: 'Thu, 01 Jan 1970 00:00:00 GMT' }],
    ['an invalid Expires', { expires: '0' }],
    ['no cache headers at all', {}],
    ['an Age beyond max-age', { 'cache-control': 'max-age=100', age: '500' }],
  ])('keeps the minimum for %s', (_name, headers) => {
    expect(cacheLifetimeSeconds(headers, BOUNDS)).toBe(60);
  });

  it('never keeps a document longer than the maximum', () => {
    expect(cacheLifetimeSeconds({ 'cache-control': 'max-age=31536000' }, BOUNDS)).toBe(86_400);
    expect(cacheLifetimeSeconds({ expires: 'Thu, 01 Jan 2099 00:00:00 GMT' }, BOUNDS)).toBe(86_400);
  });

  it('gives a private cache (a client) the default when the response has no lifetime, and ignores s-maxage', () => {
    const client = {
      minCacheSeconds: 0,
      maxCacheSeconds: 86_400,
      defaultCacheSeconds: 3_600,
      sharedCache: false,
    };
    expect(cacheLifetimeSeconds({}, client)).toBe(3_600);
    expect(cacheLifetimeSeconds({ 'cache-control': 'max-age=300, s-maxage=9000' }, client)).toBe(300);
    expect(cacheLifetimeSeconds({ 'cache-control': 's-maxage=9000' }, client)).toBe(3_600);
    expect(cacheLifetimeSeconds({ 'cache-control': 'no-store' }, client)).toBe(0);
  });
});
