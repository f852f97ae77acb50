import { describe, expect, it } from '@jest/globals';
import { ClientRegistrationResponseSchema } from './client-registration-response.schema.js';

// RFC 7591 section 3.2.1, the example response body, as printed.
const RFC_7591_RESPONSE = `
     {
      "client_id": "s6BhdRkqt3",
      "client_secret": "cf136dc3c1fc93f31185e5885805d",
      "client_id_issued_at": 2893256800,
      "client_secret_expires_at": 2893276800,
      "redirect_uris": [
        "https://client.example.org/callback",
        "https://client.example.org/callback2"],
      "grant_types": ["authorization_code", "refresh_token"],
      "client_name": "My Example Client",
      "client_name#ja-Jpan-JP":
         "\\u30AF\\u30E9\\u30A4\\u30A2\\u30F3\\u30C8\\u540D",
      "token_endpoint_auth_method": "client_secret_basic",
      "logo_uri": "https://client.example.org/logo.png",
      "jwks_uri": "https://client.example.org/my_public_keys.jwks",
      "example_extension_parameter": "example_value"
     }`;

// RFC 7592 section 3, the example response body with registration management members, as printed.
const RFC_7592_RESPONSE = `
     {
      "registration_access_token": "reg-23410913-abewfq.123483",
      "registration_client_uri":
          "https://server.example.com/register/s6BhdRkqt3",
      "client_id": "s6BhdRkqt3",
      "client_secret": "cf136dc3c1fc93f31185e5885805d",
      "client_id_issued_at": 2893256800,
      "client_secret_expires_at": 2893276800,
      "client_name": "My Example Client",
      "client_name#ja-Jpan-JP":
         "\\u30AF\\u30E9\\u30A4\\u30A2\\u30F3\\u30C8\\u540D",
      "redirect_uris": [
        "https://client.example.org/callback",
        "https://client.example.org/callback2"],
      "grant_types": ["authorization_code", "refresh_token"],
      "token_endpoint_auth_method": "client_secret_basic",
      "logo_uri": "https://client.example.org/logo.png",
      "jwks_uri": "https://client.example.org/my_public_keys.jwks"
     }`;

const parse = (text: string): Record<string, unknown> => JSON.parse(text) as Record<string, unknown>;

function failedPaths(value: unknown): string[] {
  const result = ClientRegistrationResponseSchema.safeParse(value);
  return result.success ? [] : result.error.issues.map((issue) => issue.path.join('.'));
}

describe('ClientRegistrationResponseSchema', () => {
  it('parses the RFC 7591 section 3.2.1 example unchanged', () => {
    const document = parse(RFC_7591_RESPONSE);
    const parsed = ClientRegistrationResponseSchema.parse(document);
    expect(parsed).toEqual(document);
    expect(parsed.client_secret_expires_at).toBe(2893276800);
  });

  it('parses the RFC 7592 section 3 example with its management members', () => {
    const parsed = ClientRegistrationResponseSchema.parse(parse(RFC_7592_RESPONSE));
    expect(parsed.registration_client_uri).toBe('https://server.example.com/register/s6BhdRkqt3');
    expect(parsed.registration_access_token).toBe('reg-23410913-abewfq.123483');
  });

  it('accepts a public client without a secret, and a secret that never expires', () => {
    expect(failedPaths({ client_id: 'abc', token_endpoint_auth_method: 'none' })).toEqual([]);
    expect(failedPaths({ client_id: 'abc', client_secret: 's', client_secret_expires_at: 0 })).toEqual([]);
  });

  it.each<[string, Record<string, unknown>, string[]]>([
    ['a missing client_id', { client_id: undefined }, ['client_id']],
    ['an empty client_id', { client_id: '' }, ['client_id']],
    [
      'a secret without client_secret_expires_at',
      { client_secret_expires_at: undefined },
      ['client_secret_expires_at'],
    ],
    ['client_id_issued_at as a string', { client_id_issued_at: '2893256800' }, ['client_id_issued_at']],
    ['a negative client_secret_expires_at', { client_secret_expires_at: -1 }, ['client_secret_expires_at']],
    ['a fractional client_id_issued_at', { client_id_issued_at: 1.5 }, ['client_id_issued_at']],
    [
      'a javascript: registration_client_uri',
      { registration_client_uri: 'javascript:alert(1)' },
      ['registration_client_uri'],
    ],
    [
      'an echoed redirect URI with a fragment',
      { redirect_uris: ['https://client.example.org/cb#'] },
      ['redirect_uris.0'],
    ],
    ['both jwks_uri and jwks', { jwks: { keys: [] } }, ['jwks']],
  ])('rejects %s', (_case, change, paths) => {
    expect(failedPaths({ ...parse(RFC_7591_RESPONSE), ...change })).toEqual(paths);
  });
});
