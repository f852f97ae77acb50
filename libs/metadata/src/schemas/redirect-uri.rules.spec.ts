import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  describeRedirectUriProblem,
  findRedirectUriProblem,
  isReverseDomainScheme,
  privateUseSchemeProblem,
  redirectUriKind,
  type RedirectUriKind,
  type RedirectUriProblem,
} from './redirect-uri.rules.js';

describe('findRedirectUriProblem', () => {
  const cursor = ['cursor', 'com.example.notes'];
  const rows: [string, readonly string[], RedirectUriProblem | undefined][] = [
    ['https://app.example/cb', [], undefined],
    ['http://127.0.0.1:33418/', [], undefined],
    ['http://localhost/callback', [], undefined],
    ['http://app.example/cb', [], 'insecure_http'],
    ['cursor://anysphere.cursor-mcp/oauth/callback', [], 'scheme_not_allowed'],
    ['cursor://anysphere.cursor-mcp/oauth/callback', cursor, undefined],
    ['CURSOR://anysphere.cursor-mcp/oauth/callback', cursor, undefined],
    ['com.example.notes:/oauth2redirect', cursor, undefined],
    ['com.example.notes:callback', cursor, 'no_path'],
    ['com.example.notes:/cb#x', cursor, 'fragment'],
    ['cursor://user@anysphere.cursor-mcp/cb', cursor, 'userinfo'],
    ['cursor://anysphere.cursor-mcp/c b', cursor, 'invalid_characters'],
    ['vscode://callback', cursor, 'scheme_not_allowed'],
    // A browser scheme never becomes private-use, even when listed.
    ['javascript:/alert(1)', ['javascript'], 'refused_scheme'],
    ['http://app.example/cb', ['http'], 'insecure_http'],
  ];

  it.each(rows)('reads %j allowing %j as %s', (uri, schemes, expected) => {
    expect(findRedirectUriProblem(uri, schemes)).toBe(expected);
  });

  it('names the allowed private-use schemes when the scheme is what is wrong', () => {
    expect(describeRedirectUriProblem('scheme_not_allowed', ['cursor'])).toBe(
      'must use one of the schemes https, http, cursor',
    );
    expect(describeRedirectUriProblem('no_path')).toContain('scheme:/path');
  });

  it('never accepts a URI whose scheme is neither https, loopback http nor an allowed one', () => {
    fc.assert(
      fc.property(fc.oneof(fc.webUrl({ withFragments: true }), fc.string()), (uri) => {
        const kind = redirectUriKind(uri, ['cursor']);
        if (kind === undefined) return;
        expect(['https:', 'http:', 'cursor:']).toContain(new URL(uri).protocol);
        expect(uri).not.toContain('#');
      }),
    );
  });
});

describe('redirectUriKind', () => {
  it.each<[string, RedirectUriKind | undefined]>([
    ['https://vscode.dev/redirect', 'https'],
    ['http://127.0.0.1/', 'loopback'],
    ['http://[::1]:8080/cb', 'loopback'],
    ['cursor://anysphere.cursor-mcp/oauth/callback', 'private-use'],
    ['http://app.example/cb', undefined],
  ])('classifies %s as %s', (uri, kind) => {
    expect(redirectUriKind(uri, ['cursor'])).toBe(kind);
  });
});

describe('the schemes an operator may allow', () => {
  it.each(['cursor', 'com.example.notes', 'vnd.app+x-1'])('accept %s', (scheme) => {
    expect(privateUseSchemeProblem(scheme)).toBeUndefined();
  });

  it.each([
    ['javascript', 'the browser handles javascript: URIs itself'],
    ['data', 'the browser handles data: URIs itself'],
    ['vbscript', 'not a private-use scheme'],
    ['file', 'not a private-use scheme'],
    ['https', 'not a private-use scheme'],
    ['http', 'not a private-use scheme'],
    ['blob', 'not a private-use scheme'],
    ['Cursor', 'is not a URI scheme'],
    ['1app', 'is not a URI scheme'],
    ['my app', 'is not a URI scheme'],
    ['', 'is not a URI scheme'],
  ])('refuse %j (%s)', (scheme, message) => {
    expect(privateUseSchemeProblem(scheme)).toContain(message);
  });

  it('tell a reverse domain name from a bare word (RFC 8252 8.4)', () => {
    expect(isReverseDomainScheme('com.example.notes')).toBe(true);
    expect(isReverseDomainScheme('cursor')).toBe(false);
  });
});
