import { randomBytes } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { cookieName, readCookies, serializeCookie, signCookieValue, verifyCookieValue } from './cookies.js';

describe('cookies', () => {
  const secret = randomBytes(32);

  it('verifies its own signature and nothing else', () => {
    const signed = signCookieValue('session', 'abc', secret);
    expect(verifyCookieValue('session', signed, secret)).toBe('abc');
    expect(verifyCookieValue('other', signed, secret)).toBeUndefined();
    expect(verifyCookieValue('session', signed, randomBytes(32))).toBeUndefined();
    expect(verifyCookieValue('session', `x${signed}`, secret)).toBeUndefined();
    expect(verifyCookieValue('session', 'abc', secret)).toBeUndefined();
  });

  it('uses the __Host- prefix with Secure under https only', () => {
    expect(cookieName('s', new URL('https://auth.example.com:8443'))).toBe('__Host-s');
    expect(serializeCookie('__Host-s', 'v', { secure: true, maxAge: 60 })).toBe(
      '__Host-s=v; Path=/; HttpOnly; SameSite=Lax; Secure; Max-Age=60',
    );
    expect(cookieName('s', new URL('http://localhost:4000'))).toBe('s-4000');
    expect(cookieName('s', new URL('http://localhost'))).toBe('s-80');
    expect(serializeCookie('s', 'v', { secure: false })).toBe('s=v; Path=/; HttpOnly; SameSite=Lax');
  });

  it('reads the first of repeated cookies', () => {
    expect(readCookies('a=1; b=2; a=3')).toEqual(
      new Map([
        ['a', '1'],
        ['b', '2'],
      ]),
    );
    expect(readCookies(undefined).size).toBe(0);
  });
});
