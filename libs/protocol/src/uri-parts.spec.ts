import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { splitAuthority, splitUri } from './uri-parts.js';

describe('splitUri', () => {
  it('splits the five components without changing a byte', () => {
    expect(splitUri('HTTPS://User@Host:443/a/../b?x=%2F#frag')).toEqual({
      scheme: 'HTTPS',
      authority: 'User@Host:443',
      path: '/a/../b',
      query: 'x=%2F',
      fragment: 'frag',
    });
  });

  it('tells an absent component from an empty one', () => {
    expect(splitUri('https://x')).toEqual({
      scheme: 'https',
      authority: 'x',
      path: '',
      query: undefined,
      fragment: undefined,
    });
    expect(splitUri('https://x?#')).toEqual({
      scheme: 'https',
      authority: 'x',
      path: '',
      query: '',
      fragment: '',
    });
  });

  it('rebuilds every string from its components', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'binary' }),
          fc.webUrl({ withFragments: true, withQueryParameters: true }),
        ),
        (s) => {
          const { scheme, authority, path, query, fragment } = splitUri(s);
          const rebuilt =
            (scheme === undefined ? '' : `${scheme}:`) +
            (authority === undefined ? '' : `//${authority}`) +
            path +
            (query === undefined ? '' : `?${query}`) +
            (fragment === undefined ? '' : `#${fragment}`);
          expect(rebuilt).toBe(s);
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe('splitAuthority', () => {
  it.each([
    ['host', { userinfo: undefined, host: 'host', port: undefined }],
    ['host:', { userinfo: undefined, host: 'host', port: '' }],
    ['u:p@host:8080', { userinfo: 'u:p', host: 'host', port: '8080' }],
    ['[::1]:443', { userinfo: undefined, host: '[::1]', port: '443' }],
    ['[::1]', { userinfo: undefined, host: '[::1]', port: undefined }],
    ['', { userinfo: undefined, host: '', port: undefined }],
  ])('splits %j', (authority, parts) => {
    expect(splitAuthority(authority)).toEqual(parts);
  });

  it.each(['[::1', '[::1]x', '[::1]]'])('refuses the malformed host of %j', (authority) => {
    expect(splitAuthority(authority)).toBeUndefined();
  });
});
