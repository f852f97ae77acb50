import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { DEFAULT_SENTINEL_PORT, isRedisUrl, redisSentinelOptions } from './redis-url.js';

describe('redisSentinelOptions', () => {
  it('reads the sentinels, their ports and the master name', () => {
    expect(
      redisSentinelOptions('redis+sentinel://127.0.0.1:26441,127.0.0.1:26442,sentinel-3/portcullis'),
    ).toEqual({
      sentinels: [
        { host: '127.0.0.1', port: 26441 },
        { host: '127.0.0.1', port: 26442 },
        { host: 'sentinel-3', port: DEFAULT_SENTINEL_PORT },
      ],
      name: 'portcullis',
    });
  });

  it("reads the master's credentials and database, percent-decoded, and IPv6 sentinels bare", () => {
    expect(redisSentinelOptions('redis+sentinel://app:p%40ss%3Aword@[::1]:26379/my%20master/3')).toEqual({
      sentinels: [{ host: '::1', port: 26379 }],
      name: 'my master',
      username: 'app',
      password: 'p@ss:word',
      db: 3,
    });
    expect(redisSentinelOptions('redis+sentinel://:secret@h/m')).toEqual({
      sentinels: [{ host: 'h', port: DEFAULT_SENTINEL_PORT }],
      name: 'm',
      password: 'secret',
    });
  });

  it('leaves a redis:// or rediss:// URL to be used as it is', () => {
    expect(redisSentinelOptions('redis://127.0.0.1:6379')).toBeUndefined();
    expect(redisSentinelOptions('rediss://user:pass@redis.example:6380/1')).toBeUndefined();
  });

  it.each([
    ['no master name', 'redis+sentinel://127.0.0.1:26379'],
    ['an empty master name', 'redis+sentinel://127.0.0.1:26379/'],
    ['no sentinel', 'redis+sentinel:///portcullis'],
    ['an empty sentinel in the list', 'redis+sentinel://a:1,,b:2/portcullis'],
    ['a port out of range', 'redis+sentinel://a:70000/portcullis'],
    ['a port that is not a number', 'redis+sentinel://a:port/portcullis'],
    ['a database that is not a number', 'redis+sentinel://a/portcullis/one'],
    ['a path beyond the database', 'redis+sentinel://a/portcullis/1/2'],
    ['a query', 'redis+sentinel://a/portcullis?db=1'],
    ['a fragment', 'redis+sentinel://a/portcullis#x'],
    ['a malformed escape', 'redis+sentinel://a/%zz'],
  ])('refuses %s', (_, url) => {
    expect(redisSentinelOptions(url)).toBeUndefined();
    expect(isRedisUrl(url)).toBe(false);
  });

  it('reads back every list of sentinels and master name it is given (property)', () => {
    const host = fc.oneof(
      fc.ipV4(),
      fc.domain(),
      fc.ipV6().map((address) => `[${address}]`),
    );
    const port = fc.integer({ min: 1, max: 65535 });
    fc.assert(
      fc.property(
        fc.array(fc.tuple(host, port), { minLength: 1, maxLength: 5 }),
        fc.string({ minLength: 1, maxLength: 20 }),
        (sentinels, name) => {
          const url = `redis+sentinel://${sentinels.map(([h, p]) => `${h}:${p}`).join(',')}/${encodeURIComponent(name)}`;
          const options = redisSentinelOptions(url);
          expect(options?.name).toBe(name);
          expect(options?.sentinels.map((sentinel) => sentinel.port)).toEqual(sentinels.map(([, p]) => p));
          expect(options?.sentinels).toHaveLength(sentinels.length);
          expect(isRedisUrl(url)).toBe(true);
        },
      ),
    );
  });
});

describe('isRedisUrl', () => {
  it.each([
    'redis://127.0.0.1:6379',
    'rediss://redis.example:6380/2',
    'redis+sentinel://s1,s2:26380/mymaster',
  ])('accepts %s', (url) => expect(isRedisUrl(url)).toBe(true));

  it.each(['http://127.0.0.1:6379', 'localhost:6379', '', 'sentinel://s1/mymaster'])('refuses %s', (url) =>
    expect(isRedisUrl(url)).toBe(false),
  );
});
