import { describe, expect, it } from '@jest/globals';
import { OAuthErrorResponseSchema } from './oauth-error-response.schema.js';

// RFC 6749 section 5.2, the example response body, as printed.
const RFC_6749_ERROR_RESPONSE = `
     {
       "error":"invalid_request"
     }`;

// RFC 7591 section 3.2.2, the two example error bodies, as printed.
const RFC_7591_ERROR_REDIRECT_URI = `
     {
      "error": "invalid_redirect_uri",
      "error_description": "The redirection URI
        http://sketchy.example.com is not allowed by this server."
     }`;
const RFC_7591_ERROR_CLIENT_METADATA = `
     {
      "error": "invalid_client_metadata",
      "error_description": "The grant type 'authorization_code' must be
        registered along with the response type 'code' but found only
        'implicit' instead."
     }`;

// RFC 7591 prints its descriptions folded over several lines, which is not valid JSON; unfold them the way the
// RFC means them (one space where the line was broken).
const parse = (text: string): Record<string, unknown> =>
  JSON.parse(text.replace(/\n\s+(?=[^\s"{}])/g, ' ')) as Record<string, unknown>;

function failedPaths(value: unknown): string[] {
  const result = OAuthErrorResponseSchema.safeParse(value);
  return result.success ? [] : result.error.issues.map((issue) => issue.path.join('.'));
}

describe('OAuthErrorResponseSchema', () => {
  it('parses the RFC 6749 section 5.2 example', () => {
    expect(OAuthErrorResponseSchema.parse(parse(RFC_6749_ERROR_RESPONSE))).toEqual({
      error: 'invalid_request',
    });
  });

  it.each([RFC_7591_ERROR_REDIRECT_URI, RFC_7591_ERROR_CLIENT_METADATA])(
    'parses the RFC 7591 section 3.2.2 registration error examples',
    (text) => {
      const document = parse(text);
      expect(OAuthErrorResponseSchema.parse(document)).toEqual(document);
    },
  );

  it('unfolds the RFC 7591 example into the sentence it prints', () => {
    expect(parse(RFC_7591_ERROR_REDIRECT_URI)['error_description']).toBe(
      'The redirection URI http://sketchy.example.com is not allowed by this server.',
    );
  });

  it('keeps extension members and accepts an error_uri page', () => {
    const document = {
      error: 'insufficient_scope',
      error_uri: 'https://as.example.com/errors#scope',
      scope: 'a b',
    };
    expect(OAuthErrorResponseSchema.parse(document)).toEqual(document);
  });

  it.each<[string, Record<string, unknown>, string[]]>([
    ['a missing error', { error: undefined }, ['error']],
    ['an empty error', { error: '' }, ['error']],
    ['an error with a double quote', { error: 'invalid"request' }, ['error']],
    ['an error with a backslash', { error: 'invalid\\request' }, ['error']],
    ['a description with a line break', { error_description: 'line one\r\nline two' }, ['error_description']],
    [
      'a description with non-ASCII text',
      { error_description: 'Ung\u00fcltiger Code' },
      ['error_description'],
    ],
    ['a javascript: error_uri', { error_uri: 'javascript:alert(document.cookie)' }, ['error_uri']],
    ['a relative error_uri', { error_uri: '/errors/invalid_request' }, ['error_uri']],
  ])('rejects %s', (_case, change, paths) => {
    expect(failedPaths({ error: 'invalid_request', ...change })).toEqual(paths);
  });
});
