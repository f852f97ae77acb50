import { describe, expect, it } from '@jest/globals';
import { CookieJar, isPotentiallyTrustworthy, type SetCookieOutcome } from './cookie-jar.js';

const AS = 'https://as.example.com/';

function names(jar: CookieJar, url: string): string[] {
  return jar.cookies(url).map((cookie) => cookie.name);
}

function rejection(outcome: SetCookieOutcome): string | undefined {
  return outcome.outcome === 'rejected' ? outcome.reason : undefined;
}

describe('CookieJar', () => {
  it('sends a cookie without Domain back to exactly its host, and a Domain cookie to subdomains too', () => {
    const jar = new CookieJar();
    jar.setCookie('host=1', AS);
    jar.setCookie('shared=1; Domain=.Example.com', AS);
    expect(names(jar, 'https://as.example.com/')).toEqual(['host', 'shared']);
    expect(names(jar, 'https://login.as.example.com/')).toEqual(['shared']);
    expect(names(jar, 'https://example.com/')).toEqual(['shared']);
    expect(names(jar, 'https://notexample.com/')).toEqual([]);
    expect(jar.cookies('https://as.example.com/')[0]).toMatchObject({
      domain: 'as.example.com',
      hostOnly: true,
    });
  });

  it('rejects a Domain the host is not within, a top-level Domain, and any other Domain on an IP address', () => {
    const jar = new CookieJar();
    expect(rejection(jar.setCookie('a=1; Domain=other.com', AS))).toMatch(/does not domain-match/);
    expect(rejection(jar.setCookie('a=1; Domain=login.as.example.com', AS))).toMatch(/does not domain-match/);
    expect(rejection(jar.setCookie('a=1; Domain=com', AS))).toMatch(/top-level/);
    expect(rejection(jar.setCookie('a=1; Domain=0.0.1', 'http://127.0.0.1/'))).toMatch(
      /does not domain-match/,
    );
    expect(jar.setCookie('a=1; Domain=127.0.0.1', 'http://127.0.0.1/')).toMatchObject({
      outcome: 'stored',
      cookie: { hostOnly: true, domain: '127.0.0.1' },
    });
    expect(jar.all()).toHaveLength(1);
  });

  it('scopes a cookie to its Path, or to the directory of the URL that set it, on segment boundaries', () => {
    const jar = new CookieJar();
    jar.setCookie('explicit=1; Path=/oauth', AS);
    jar.setCookie('defaulted=1', 'https://as.example.com/interaction/abc/login');
    jar.setCookie('invalid=1; Path=relative', 'https://as.example.com/a/b');
    expect(names(jar, 'https://as.example.com/oauth')).toEqual(['explicit']);
    expect(names(jar, 'https://as.example.com/oauth/token')).toEqual(['explicit']);
    expect(names(jar, 'https://as.example.com/oauthx')).toEqual([]);
    expect(names(jar, 'https://as.example.com/interaction/abc/consent')).toEqual(['defaulted']);
    expect(names(jar, 'https://as.example.com/interaction/abd')).toEqual([]);
    expect(names(jar, 'https://as.example.com/a/c')).toEqual(['invalid']);
  });

  it('orders the Cookie header by longer path first, then by creation, and ignores the port', () => {
    let now = 1_000;
    const jar = new CookieJar({ now: () => now++ });
    jar.setCookie('b=root; Path=/', 'http://127.0.0.1:1/');
    jar.setCookie('a=deep; Path=/oauth/authorize', 'http://127.0.0.1:1/');
    jar.setCookie('c=oauth; Path=/oauth', 'http://127.0.0.1:1/');
    jar.setCookie('d=root2; Path=/', 'http://127.0.0.1:1/');
    expect(jar.cookieHeader('http://127.0.0.1:2/oauth/authorize')).toBe('a=deep; c=oauth; b=root; d=root2');
  });

  it('deletes a cookie with Max-Age=0 or a past Expires, and lets Max-Age win over Expires', () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const jar = new CookieJar({ now: () => now });
    jar.setCookie('session=1; Path=/', AS);
    jar.setCookie('other=1; Path=/', AS);
    expect(jar.setCookie('session=; Path=/; Max-Age=0', AS)).toEqual({
      outcome: 'deleted',
      name: 'session',
      removed: true,
    });
    expect(jar.setCookie('other=; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT', AS)).toMatchObject({
      removed: true,
    });
    expect(jar.setCookie('never=1; Max-Age=-5', AS)).toMatchObject({ outcome: 'deleted', removed: false });
    jar.setCookie('kept=1; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=60', AS);
    expect(names(jar, AS)).toEqual(['kept']);
    now += 61_000;
    expect(names(jar, AS)).toEqual([]);
  });

  it('keeps a cookie until its Expires date', () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const jar = new CookieJar({ now: () => now });
    jar.setCookie('a=1; Expires=Thu, 01 Jan 2026 00:10:00 GMT', AS);
    now += 9 * 60_000;
    expect(names(jar, AS)).toEqual(['a']);
    now += 60_000;
    expect(names(jar, AS)).toEqual([]);
  });

  it('accepts a __Host- cookie only with Secure, no Domain and Path=/', () => {
    const jar = new CookieJar();
    expect(rejection(jar.setCookie('__Host-s=1; Path=/', AS))).toMatch(/__Host- cookie needs Secure/);
    expect(rejection(jar.setCookie('__Host-s=1; Secure; Path=/; Domain=as.example.com', AS))).toMatch(
      /may not have a Domain/,
    );
    expect(rejection(jar.setCookie('__Host-s=1; Secure; Path=/oauth', AS))).toMatch(/needs Path=\//);
    expect(rejection(jar.setCookie('__Host-s=1; Secure', AS))).toMatch(/needs Path=\//);
    expect(rejection(jar.setCookie('__HOST-s=1; Secure; Path=/x', AS))).toMatch(/needs Path=\//);
    expect(rejection(jar.setCookie('=__Host-s; Secure; Path=/x', AS))).toMatch(/__Host-/);
    expect(jar.setCookie('__Host-s=1; Secure; Path=/; HttpOnly; SameSite=Lax', AS)).toMatchObject({
      outcome: 'stored',
      cookie: { secure: true, httpOnly: true, sameSite: 'Lax', hostOnly: true, path: '/' },
    });
    expect(names(jar, AS)).toEqual(['__Host-s']);
  });

  it('accepts a __Secure- cookie only with Secure', () => {
    const jar = new CookieJar();
    expect(rejection(jar.setCookie('__Secure-id=1', AS))).toMatch(/__Secure- cookie needs Secure/);
    expect(jar.setCookie('__Secure-id=1; Secure; Domain=example.com', AS).outcome).toBe('stored');
  });

  it('takes and sends Secure cookies over https and loopback http, never over other http', () => {
    const jar = new CookieJar();
    expect(rejection(jar.setCookie('s=1; Secure', 'http://as.example.com/'))).toMatch(/insecure origin/);
    expect(jar.setCookie('s=1; Secure', 'http://127.0.0.1:3000/').outcome).toBe('stored');
    expect(jar.setCookie('s=1; Secure', 'https://as.example.com/').outcome).toBe('stored');
    expect(names(jar, 'http://127.0.0.1:4000/')).toEqual(['s']);
    expect(names(jar, 'http://as.example.com/')).toEqual([]);
    expect(names(jar, 'https://as.example.com/')).toEqual(['s']);
  });

  it('does not let an insecure origin overwrite a Secure cookie', () => {
    const jar = new CookieJar();
    jar.setCookie('sid=secure; Secure; Domain=example.com', 'https://as.example.com/');
    expect(rejection(jar.setCookie('sid=forged', 'http://as.example.com/'))).toMatch(/overwrite a Secure/);
    expect(jar.cookieHeader('https://as.example.com/')).toBe('sid=secure');
  });

  it('rejects SameSite=None without Secure, headers with control characters, and empty pairs', () => {
    const jar = new CookieJar();
    expect(rejection(jar.setCookie('a=1; SameSite=None', AS))).toMatch(/SameSite=None needs Secure/);
    expect(rejection(jar.setCookie('a=1\u0001', AS))).toMatch(/control character/);
    expect(rejection(jar.setCookie('=; Path=/', AS))).toMatch(/neither a name nor a value/);
    expect(jar.all()).toEqual([]);
  });

  it('replaces a cookie with the same name, domain and path but keeps its creation time', () => {
    let now = 1;
    const jar = new CookieJar({ now: () => now });
    const authorize = 'https://as.example.com/oauth/authorize';
    jar.setCookie('a=1', authorize);
    now = 50;
    jar.setCookie('a=2', authorize);
    jar.setCookie('a=3; Path=/', authorize);
    expect(jar.all().map(({ value, path, created }) => [value, path, created])).toEqual([
      ['2', '/oauth', 1],
      ['3', '/', 50],
    ]);
  });

  it('sends a nameless cookie as its bare value', () => {
    const jar = new CookieJar();
    jar.setCookie('flag', AS);
    jar.setCookie('x= y z ', AS);
    expect(jar.cookieHeader(AS)).toBe('flag; x=y z');
    jar.clear();
    expect(jar.cookieHeader(AS)).toBeUndefined();
  });
});

describe('isPotentiallyTrustworthy', () => {
  it.each([
    ['https://as.example.com/', true],
    ['http://localhost:3000/', true],
    ['http://app.localhost/', true],
    ['http://127.0.0.1/', true],
    ['http://127.8.9.10/', true],
    ['http://[::1]:8080/', true],
    ['http://as.example.com/', false],
    ['http://128.0.0.1/', false],
    ['http://localhost.example.com/', false],
    ['ftp://localhost/', false],
  ])('says %s is %s', (url, expected) => {
    expect(isPotentiallyTrustworthy(new URL(url))).toBe(expected);
  });
});
