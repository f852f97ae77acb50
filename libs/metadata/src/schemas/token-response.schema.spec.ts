import { describe, expect, it } from '@jest/globals';
import { TokenResponseSchema } from './token-response.schema.js';

// RFC 6749 section 5.1, the example response body, as printed.
const RFC_6749_TOKEN_RESPONSE = `
     {
       "access_token":"2YotnFZFEjr1zCsicMWpAA",
       "token_type":"example",
       "expires_in":3600,
       "refresh_token":"tGzv3JOkF0XG5Qx2TlKWIA",
       "example_parameter":"example_value"
     }`;

const example = (): Record<string, unknown> => JSON.parse(RFC_6749_TOKEN_RESPONSE) as Record<string, unknown>;

function failedPaths(value: unknown): string[] {
  const result = TokenResponseSchema.safeParse(value);
  return result.success ? [] : result.error.issues.map((issue) => issue.path.join('.'));
}

describe('TokenResponseSchema', () => {
  it('parses the RFC 6749 section 5.1 example unchanged, keeping example_parameter', () => {
    const document = example();
    const parsed = TokenResponseSchema.parse(document);
    expect(parsed).toEqual(document);
    expect(parsed['example_parameter']).toBe('example_value');
  });

  it('accepts a bearer response with a scope and no refresh token', () => {
    expect(
      failedPaths({
        access_token: 'eyJ.a.b',
        token_type: 'Bearer',
        expires_in: 300,
        scope: 'files:read files:write',
      }),
    ).toEqual([]);
  });

  it.each<[string, Record<string, unknown>, string[]]>([
    ['a missing access_token', { access_token: undefined }, ['access_token']],
    ['an empty access_token', { access_token: '' }, ['access_token']],
    ['an access_token with CR LF', { access_token: 'abc\r\nX-Injected: 1' }, ['access_token']],
    ['a non-ASCII refresh_token', { refresh_token: 'tok\u00e9n' }, ['refresh_token']],
    ['a missing token_type', { token_type: undefined }, ['token_type']],
    ['expires_in as a string', { expires_in: '3600' }, ['expires_in']],
    ['a negative expires_in', { expires_in: -1 }, ['expires_in']],
    ['a fractional expires_in', { expires_in: 3.5 }, ['expires_in']],
    ['a scope with a backslash', { scope: 'read\\write' }, ['scope']],
    ['an empty scope', { scope: '' }, ['scope']],
  ])('rejects %s', (_case, change, paths) => {
    expect(failedPaths({ ...example(), ...change })).toEqual(paths);
  });
});
