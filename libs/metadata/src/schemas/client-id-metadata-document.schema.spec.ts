import { describe, expect, it } from '@jest/globals';
import { ClientIdMetadataDocumentSchema } from './client-id-metadata-document.schema.js';

// The example metadata document of the MCP authorization specification, "Client ID Metadata Documents", as
// printed. (The draft itself prints no complete document.)
const MCP_EXAMPLE = `
{
  "client_id": "https://app.example.com/oauth/client-metadata.json",
  "client_name": "Example MCP Client",
  "client_uri": "https://app.example.com",
  "logo_uri": "https://app.example.com/logo.png",
  "redirect_uris": [
    "http://127.0.0.1:3000/callback",
    "http://localhost:3000/callback"
  ],
  "grant_types": ["authorization_code"],
  "response_types": ["code"],
  "token_endpoint_auth_method": "none"
}`;

// draft-ietf-oauth-client-id-metadata-document-00 section 6.2 prints only these two members ("{ ...
// "token_endpoint_auth_method": "private_key_jwt", "jwks_uri": "https://client.example.com/jwks.json" ... }");
// the "..." is filled with the members the document must have.
const DRAFT_SECTION_6_2_EXAMPLE = {
  client_id: 'https://client.example.com/client.json',
  client_name: 'Example Client',
  redirect_uris: ['https://client.example.com/callback'],
  token_endpoint_auth_method: 'private_key_jwt',
  jwks_uri: 'https://client.example.com/jwks.json',
};

const example = (): Record<string, unknown> => JSON.parse(MCP_EXAMPLE) as Record<string, unknown>;

function failedRules(value: unknown): unknown[] {
  const result = ClientIdMetadataDocumentSchema.safeParse(value);
  return result.success
    ? []
    : result.error.issues.map(
        (issue) => (issue.code === 'custom' ? issue.params?.['rule'] : undefined) ?? issue.path.join('.'),
      );
}

describe('ClientIdMetadataDocumentSchema', () => {
  it('parses the MCP specification example unchanged', () => {
    const document = example();
    expect(ClientIdMetadataDocumentSchema.parse(document)).toEqual(document);
  });

  it('parses the draft section 6.2 private_key_jwt example', () => {
    expect(ClientIdMetadataDocumentSchema.parse(DRAFT_SECTION_6_2_EXAMPLE)).toEqual(
      DRAFT_SECTION_6_2_EXAMPLE,
    );
  });

  it('keeps members it does not define', () => {
    const document = {
      ...example(),
      software_id: 'x',
      post_logout_redirect_uris: ['https://app.example.com/'],
    };
    expect(ClientIdMetadataDocumentSchema.parse(document)).toEqual(document);
  });

  it.each<[string, Record<string, unknown>, unknown[]]>([
    [
      'a client_id that is not a Client Identifier URL',
      { client_id: 'https://app.example.com/' },
      ['client_id_url_invalid'],
    ],
    [
      'a client_id with a fragment',
      { client_id: 'https://app.example.com/c.json#' },
      ['client_id_url_invalid'],
    ],
    ['a blank client_name', { client_name: ' ' }, ['client_name_missing']],
    ['an empty redirect_uris', { redirect_uris: [] }, ['redirect_uris_missing']],
    [
      'a plain-http redirect on a public host',
      { redirect_uris: ['http://app.example.com/cb'] },
      ['redirect_uri_insecure'],
    ],
    [
      'a redirect with an empty fragment',
      { redirect_uris: ['https://app.example.com/cb#'] },
      ['redirect_uri_fragment'],
    ],
    ['a client_secret', { client_secret: 'shh' }, ['client_secret_forbidden']],
    [
      'a shared-secret auth method',
      { token_endpoint_auth_method: 'client_secret_basic' },
      ['shared_secret_auth_method'],
    ],
    [
      'a private key in jwks',
      { jwks: { keys: [{ kty: 'EC', crv: 'P-256', x: 'a', y: 'b', d: 'c' }] } },
      ['jwks_private_key'],
    ],
    [
      'private_key_jwt without keys',
      { token_endpoint_auth_method: 'private_key_jwt' },
      ['private_key_jwt_without_keys'],
    ],
    ['a data: logo', { logo_uri: 'data:image/png;base64,AAAA' }, ['logo_uri']],
  ])('rejects %s with the rule code in params', (_case, change, rules) => {
    expect(failedRules({ ...example(), ...change })).toEqual(rules);
  });

  it('reports the missing required members from the shape', () => {
    expect(failedRules({}).sort()).toEqual(['client_id', 'client_name', 'redirect_uris']);
  });
});
