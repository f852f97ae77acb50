import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { OAuthError } from '@portcullis/protocol';
import type { BearerRequest } from '../bearer-request.js';
import { readAccessToken, readBearerToken } from './authorization-header.check.js';

const withHeader = (authorization: string | undefined, rawHeaders?: string[]): BearerRequest => ({
  headers: authorization === undefined ? {} : { authorization },
  ...(rawHeaders ? { raw: { rawHeaders } } : {}),
});

describe('readBearerToken', () => {
  it('reads the token of a Bearer credential, whatever the scheme’s case and the spaces after it', () => {
    expect(readBearerToken(withHeader('Bearer abc.def-_~+/=='))).toBe('abc.def-_~+/==');
    expect(readBearerToken(withHeader('bearer abc'))).toBe('abc');
    expect(readBearerToken(withHeader('BEARER   abc'))).toBe('abc');
  });

  it('finds no bearer token without an Authorization header or with another scheme', () => {
    expect(readBearerToken(withHeader(undefined))).toBeUndefined();
    expect(readBearerToken(withHeader('Basic dXNlcjpwYXNz'))).toBeUndefined();
    expect(readBearerToken(withHeader('DPoP abc'))).toBeUndefined();
  });

  it.each([
    'Bearer',
    'Bearer ',
    'Bearer a b',
    'Bearer a"b',
    'Bearer ä',
    'Bearer a,b',
    '',
    ' Bearer x',
    '=Bearer x',
  ])('rejects %j as invalid_request', (header) => {
    expect(() => readBearerToken(withHeader(header))).toThrow(
      expect.objectContaining({ code: 'invalid_request' }) as unknown as Error,
    );
  });

  it('rejects two Authorization fields, which Node would otherwise merge into one', () => {
    const request = withHeader('Bearer a', ['Authorization', 'Bearer a', 'authorization', 'Bearer b']);
    expect(() => readBearerToken(request)).toThrow(
      expect.objectContaining({ code: 'invalid_request' }) as unknown as Error,
    );
  });

  it('either returns a token, returns nothing or throws invalid_request for any header value', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.string().map((rest) => `Bearer ${rest}`),
        ),
        (header) => {
          try {
            const token = readBearerToken(withHeader(header));
            if (token !== undefined) expect(header.toLowerCase().startsWith('bearer ')).toBe(true);
          } catch (error) {
            expect(error).toBeInstanceOf(OAuthError);
            expect((error as OAuthError).code).toBe('invalid_request');
          }
        },
      ),
    );
  });
});

describe('readAccessToken with a proof-of-possession scheme composed (RFC 9449 Section 7.1)', () => {
  it('reads a Bearer credential and a DPoP credential, each with its scheme, in any case', () => {
    expect(readAccessToken(withHeader('Bearer abc'), 'DPoP')).toEqual({ token: 'abc', scheme: 'bearer' });
    expect(readAccessToken(withHeader('DPoP abc.def'), 'DPoP')).toEqual({
      token: 'abc.def',
      scheme: 'proof',
    });
    expect(readAccessToken(withHeader('dpop  abc'), 'DPoP')).toEqual({ token: 'abc', scheme: 'proof' });
  });

  it('finds no credentials with another scheme, and none for DPoP when no extension provides it', () => {
    expect(readAccessToken(withHeader('Basic dXNlcjpwYXNz'), 'DPoP')).toBeUndefined();
    expect(readAccessToken(withHeader('DPoP abc'))).toBeUndefined();
  });

  it.each(['DPoP', 'DPoP ', 'DPoP a b', 'DPoP a,b', 'DPoP a"b'])(
    'rejects %j as invalid_request',
    (header) => {
      expect(() => readAccessToken(withHeader(header), 'DPoP')).toThrow(
        expect.objectContaining({ code: 'invalid_request' }) as unknown as Error,
      );
    },
  );

  it('rejects a DPoP and a Bearer field together, one set of credentials only (RFC 9110 Section 11.6.2)', () => {
    const request = withHeader('DPoP a', ['Authorization', 'DPoP a', 'Authorization', 'Bearer a']);
    expect(() => readAccessToken(request, 'DPoP')).toThrow(
      expect.objectContaining({ code: 'invalid_request' }) as unknown as Error,
    );
  });
});
