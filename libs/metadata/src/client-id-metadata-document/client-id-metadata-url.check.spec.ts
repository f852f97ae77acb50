import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  clientIdMetadataUrlProblem,
  isClientIdMetadataUrl,
  isLoopbackClientIdMetadataUrl,
} from './client-id-metadata-url.check.js';

describe('isClientIdMetadataUrl', () => {
  it.each([
    'https://app.example.com/oauth/client-metadata.json',
    'https://example.com/client.json',
    'https://app.example.com:8443/client',
    'https://example.com/c',
    'https://example.com/a/.well-known/client',
    'https://example.com/a/..b/c.json',
    'https://example.com/a/.../c.json',
    'https://example.com/%2ea/c.json',
    // A query is a SHOULD NOT in the draft, not a MUST NOT: accepted.
    'https://example.com/client?v=2',
    'HTTPS://Example.COM/client',
  ])('accepts %s', (url) => {
    expect(isClientIdMetadataUrl(url)).toBe(true);
  });

  it.each([
    ['plain http', 'http://app.example.com/client.json', /https/],
    ['loopback http', 'http://127.0.0.1/client.json', /https/],
    ['another scheme', 'ftp://app.example.com/client.json', /https/],
    ['a javascript: URL', 'javascript:alert(1)//client.json', /schemes/],
    ['no scheme', 'app.example.com/client.json', /absolute/],
    ['no host', 'https:///client.json', /host/],
    ['a missing "//"', 'https:app.example.com/client.json', /host/],
    ['no path', 'https://app.example.com', /path/],
    ['a "/" path', 'https://app.example.com/', /path/],
    ['a "/" path before a query', 'https://app.example.com/?client=1', /path/],
    ['no path before a query', 'https://app.example.com?client=1', /path/],
    ['a fragment', 'https://app.example.com/client.json#frag', /fragment/],
    ['an empty fragment', 'https://app.example.com/client.json#', /fragment/],
    ['a username', 'https://user@app.example.com/client.json', /userinfo/],
    ['a username and password', 'https://user:secret@app.example.com/client.json', /userinfo/],
    ['an empty userinfo', 'https://@app.example.com/client.json', /userinfo/],
    ['a "." segment', 'https://app.example.com/./client.json', /segments/],
    ['a ".." segment', 'https://app.example.com/a/../client.json', /segments/],
    ['a trailing ".." segment', 'https://app.example.com/a/..', /segments/],
    ['an encoded "." segment', 'https://app.example.com/%2e/client.json', /segments/],
    ['an encoded ".." segment', 'https://app.example.com/a/%2E%2e/client.json', /segments/],
    ['a half-encoded ".." segment', 'https://app.example.com/a/.%2E/client.json', /segments/],
    ['a ".." segment before a query', 'https://app.example.com/a/..?x', /segments/],
    ['whitespace', 'https://app.example.com/client .json', /RFC 3986/],
    ['a leading space', ' https://app.example.com/client.json', /RFC 3986/],
    ['a backslash', 'https://app.example.com\\@evil.example/client.json', /RFC 3986/],
  ])('rejects %s', (_case, url, reason) => {
    expect(isClientIdMetadataUrl(url)).toBe(false);
    expect(clientIdMetadataUrlProblem(url)).toMatch(reason);
  });

  it('rejects a non-string from untyped code', () => {
    expect(isClientIdMetadataUrl(42 as unknown as string)).toBe(false);
  });

  it('rejects any URL with a dot segment however it is percent-encoded', () => {
    const dot = fc.constantFrom('.', '%2e', '%2E');
    const dotSegment = fc.oneof(
      dot,
      fc.tuple(dot, dot).map(([a, b]) => a + b),
    );
    const segment = fc.stringMatching(/^[a-z0-9_-]{1,8}$/);
    fc.assert(
      fc.property(
        fc.array(segment, { maxLength: 3 }),
        dotSegment,
        fc.array(segment, { maxLength: 3 }),
        (before, dots, after) => {
          const url = `https://app.example.com/${[...before, dots, ...after].join('/')}`;
          expect(isClientIdMetadataUrl(url)).toBe(false);
        },
      ),
    );
  });
});

describe('isLoopbackClientIdMetadataUrl', () => {
  it.each([
    'http://127.0.0.1:8080/client.json',
    'http://localhost/portcullis/client.json',
    'http://[::1]:9000/client.json',
  ])('accepts the development form %s', (url) => {
    expect(isLoopbackClientIdMetadataUrl(url)).toBe(true);
  });

  it.each([
    'https://127.0.0.1/client.json',
    'http://app.example.com/client.json',
    'http://10.0.0.1/client.json',
    'http://127.0.0.1/',
    'http://127.0.0.1/a/../client.json',
    'http://user@127.0.0.1/client.json',
    'http://127.0.0.1/client.json#x',
  ])('refuses %s', (url) => {
    expect(isLoopbackClientIdMetadataUrl(url)).toBe(false);
  });
});
