import { describe, expect, it } from '@jest/globals';
import { ClientMetadataSchema } from './client-metadata.schema.js';

// RFC 7591 section 3.1, the first example request body (with jwks_uri), as printed.
const RFC_7591_REQUEST_WITH_JWKS_URI = `
     {
      "redirect_uris": [
        "https://client.example.org/callback",
        "https://client.example.org/callback2"],
      "client_name": "My Example Client",
      "client_name#ja-Jpan-JP":
         "\\u30AF\\u30E9\\u30A4\\u30A2\\u30F3\\u30C8\\u540D",
      "token_endpoint_auth_method": "client_secret_basic",
      "logo_uri": "https://client.example.org/logo.png",
      "jwks_uri": "https://client.example.org/my_public_keys.jwks",
      "example_extension_parameter": "example_value"
     }`;

// RFC 7591 section 3.1, the second example request body (with an inline jwks), as printed; the RFC folds the
// long "n" value over several lines for the page, here it is the one string it stands for.
const RFC_7591_REQUEST_WITH_JWKS = `
     {
      "redirect_uris": [
        "https://client.example.org/callback",
        "https://client.example.org/callback2"],
      "client_name": "My Example Client",
      "client_name#ja-Jpan-JP":
         "\\u30AF\\u30E9\\u30A4\\u30A2\\u30F3\\u30C8\\u540D",
      "token_endpoint_auth_method": "client_secret_basic",
      "policy_uri": "https://client.example.org/policy.html",
      "jwks": {"keys": [{
         "e": "AQAB",
         "n": "nj3YJwsLUFl9BmpAbkOswCNVx17Eh9wMO-_AReZwBqfaWFcfGHrZXsIV2VMCNVNU8Tpb4obUaSXcRcQ-VMsfQPJm9IzgtRdAY8NN8Xb7PEcYyklBjvTtuPbpzIaqyiUepzUXNDFuAOOkrIol3WmflPUUgMKULBN0EUd1fpOD70pRM0rlp_gg_WNUKoW1V-3keYUJoXH9NztEDm_D2MQXj9eGOJJ8yPgGL8PAZMLe2R7jb9TxOCPDED7tY_TU4nFPlxptw59A42mldEmViXsKQt60s1SLboazxFKveqXC_jpLUt22OC6GUG63p-REw-ZOr3r845z50wMuzifQrMI9bQ",
         "kty": "RSA"
      }]},
      "example_extension_parameter": "example_value"
     }`;

const parse = (text: string): Record<string, unknown> => JSON.parse(text) as Record<string, unknown>;

function failedPaths(value: unknown): string[] {
  const result = ClientMetadataSchema.safeParse(value);
  return result.success ? [] : result.error.issues.map((issue) => issue.path.join('.'));
}

describe('ClientMetadataSchema', () => {
  it.each([
    ['with jwks_uri', RFC_7591_REQUEST_WITH_JWKS_URI],
    ['with an inline jwks', RFC_7591_REQUEST_WITH_JWKS],
  ])('parses the RFC 7591 section 3.1 example request %s unchanged', (_name, text) => {
    const document = parse(text);
    expect(ClientMetadataSchema.parse(document)).toEqual(document);
  });

  it('keeps the language-tagged name and the extension parameter', () => {
    const parsed = ClientMetadataSchema.parse(parse(RFC_7591_REQUEST_WITH_JWKS_URI));
    expect(parsed['client_name#ja-Jpan-JP']).toBe('クライアント名');
    expect(parsed['example_extension_parameter']).toBe('example_value');
  });

  it.each(['web', 'native'])('accepts application_type %s', (applicationType) => {
    expect(
      failedPaths({ redirect_uris: ['http://127.0.0.1/cb'], application_type: applicationType }),
    ).toEqual([]);
  });

  it('accepts dpop_bound_access_tokens true (RFC 9449 section 5.2)', () => {
    expect(failedPaths({ redirect_uris: ['http://127.0.0.1/cb'], dpop_bound_access_tokens: true })).toEqual(
      [],
    );
  });

  it('accepts a native app private-use scheme redirect and a loopback redirect', () => {
    expect(
      failedPaths({ redirect_uris: ['com.example.app:/oauth2redirect', 'http://127.0.0.1:5000/cb'] }),
    ).toEqual([]);
  });

  it('adds no defaults the client did not send', () => {
    expect(ClientMetadataSchema.parse({ redirect_uris: ['https://a.example/cb'] })).toEqual({
      redirect_uris: ['https://a.example/cb'],
    });
  });

  it.each<[string, Record<string, unknown>, string[]]>([
    ['an unknown application_type', { application_type: 'desktop' }, ['application_type']],
    [
      'a dpop_bound_access_tokens that is not a boolean',
      { dpop_bound_access_tokens: 'true' },
      ['dpop_bound_access_tokens'],
    ],
    [
      'a redirect URI with a fragment',
      { redirect_uris: ['https://client.example.org/cb#x'] },
      ['redirect_uris.0'],
    ],
    [
      'a redirect URI with an empty fragment',
      { redirect_uris: ['https://client.example.org/cb#'] },
      ['redirect_uris.0'],
    ],
    ['a javascript: redirect URI', { redirect_uris: ['javascript:alert(1)//'] }, ['redirect_uris.0']],
    ['a relative redirect URI', { redirect_uris: ['/callback'] }, ['redirect_uris.0']],
    ['a data: logo', { logo_uri: 'data:image/svg+xml,<svg onload=alert(1)>' }, ['logo_uri']],
    ['a javascript: client_uri', { client_uri: '\u0000javascript:alert(1)' }, ['client_uri']],
    ['a file: tos_uri', { tos_uri: 'file:///etc/passwd' }, ['tos_uri']],
    ['both jwks_uri and jwks', { jwks_uri: 'https://client.example.org/jwks', jwks: { keys: [] } }, ['jwks']],
    ['a jwks without keys', { jwks: { key: [] } }, ['jwks.keys']],
    ['a key without kty', { jwks: { keys: [{ n: 'x' }] } }, ['jwks.keys.0.kty']],
    ['a scope with two spaces', { scope: 'read  write' }, ['scope']],
    ['grant_types that is not a list', { grant_types: 'authorization_code' }, ['grant_types']],
  ])('rejects %s', (_case, change, paths) => {
    expect(failedPaths({ redirect_uris: ['https://client.example.org/callback'], ...change })).toEqual(paths);
  });
});
