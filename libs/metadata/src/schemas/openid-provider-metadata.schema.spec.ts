import { describe, expect, it } from '@jest/globals';
import { OpenIdProviderMetadataSchema } from './openid-provider-metadata.schema.js';

// OpenID Connect Discovery 1.0 section 4.2, the example response body, as printed.
const OIDC_DISCOVERY_EXAMPLE = `
  {
   "issuer":
     "https://server.example.com",
   "authorization_endpoint":
     "https://server.example.com/connect/authorize",
   "token_endpoint":
     "https://server.example.com/connect/token",
   "token_endpoint_auth_methods_supported":
     ["client_secret_basic", "private_key_jwt"],
   "token_endpoint_auth_signing_alg_values_supported":
     ["RS256", "ES256"],
   "userinfo_endpoint":
     "https://server.example.com/connect/userinfo",
   "check_session_iframe":
     "https://server.example.com/connect/check_session",
   "end_session_endpoint":
     "https://server.example.com/connect/end_session",
   "jwks_uri":
     "https://server.example.com/jwks.json",
   "registration_endpoint":
     "https://server.example.com/connect/register",
   "scopes_supported":
     ["openid", "profile", "email", "address",
      "phone", "offline_access"],
   "response_types_supported":
     ["code", "code id_token", "id_token", "id_token token"],
   "acr_values_supported":
     ["urn:mace:incommon:iap:silver",
      "urn:mace:incommon:iap:bronze"],
   "subject_types_supported":
     ["public", "pairwise"],
   "userinfo_signing_alg_values_supported":
     ["RS256", "ES256", "HS256"],
   "userinfo_encryption_alg_values_supported":
     ["RSA-OAEP-256", "A128KW"],
   "userinfo_encryption_enc_values_supported":
     ["A128CBC-HS256", "A128GCM"],
   "id_token_signing_alg_values_supported":
     ["RS256", "ES256", "HS256"],
   "id_token_encryption_alg_values_supported":
     ["RSA-OAEP-256", "A128KW"],
   "id_token_encryption_enc_values_supported":
     ["A128CBC-HS256", "A128GCM"],
   "request_object_signing_alg_values_supported":
     ["none", "RS256", "ES256"],
   "display_values_supported":
     ["page", "popup"],
   "claim_types_supported":
     ["normal", "distributed"],
   "claims_supported":
     ["sub", "iss", "auth_time", "acr",
      "name", "given_name", "family_name", "nickname",
      "profile", "picture", "website",
      "email", "email_verified", "locale", "zoneinfo",
      "http://example.info/claims/groups"],
   "claims_parameter_supported":
     true,
   "service_documentation":
     "http://server.example.com/connect/service_documentation.html",
   "ui_locales_supported":
     ["en-US", "en-GB", "en-CA", "fr-FR", "fr-CA"]
  }`;

const example = (): Record<string, unknown> => JSON.parse(OIDC_DISCOVERY_EXAMPLE) as Record<string, unknown>;

function failedPaths(value: unknown): string[] {
  const result = OpenIdProviderMetadataSchema.safeParse(value);
  return result.success ? [] : result.error.issues.map((issue) => issue.path.join('.'));
}

describe('OpenIdProviderMetadataSchema', () => {
  it('parses the OpenID Connect Discovery section 4.2 example unchanged', () => {
    const document = example();
    expect(OpenIdProviderMetadataSchema.parse(document)).toEqual(document);
  });

  it('keeps session management members it does not define', () => {
    const parsed = OpenIdProviderMetadataSchema.parse(example());
    expect(parsed['check_session_iframe']).toBe('https://server.example.com/connect/check_session');
    expect(parsed['end_session_endpoint']).toBe('https://server.example.com/connect/end_session');
  });

  it('accepts "none" for request objects, as OpenID Connect allows', () => {
    expect(
      OpenIdProviderMetadataSchema.parse(example()).request_object_signing_alg_values_supported,
    ).toContain('none');
  });

  it('accepts RFC 9207 and CIMD flags inherited from authorization server metadata', () => {
    const parsed = OpenIdProviderMetadataSchema.parse({
      ...example(),
      authorization_response_iss_parameter_supported: true,
      client_id_metadata_document_supported: false,
    });
    expect(parsed.authorization_response_iss_parameter_supported).toBe(true);
    expect(parsed.client_id_metadata_document_supported).toBe(false);
  });

  it.each<[string, Record<string, unknown>, string[]]>([
    ['a missing authorization_endpoint', { authorization_endpoint: undefined }, ['authorization_endpoint']],
    ['a missing jwks_uri', { jwks_uri: undefined }, ['jwks_uri']],
    [
      'a missing subject_types_supported',
      { subject_types_supported: undefined },
      ['subject_types_supported'],
    ],
    ['an empty subject_types_supported', { subject_types_supported: [] }, ['subject_types_supported']],
    [
      'a missing id_token_signing_alg_values_supported',
      { id_token_signing_alg_values_supported: undefined },
      ['id_token_signing_alg_values_supported'],
    ],
    [
      'a missing response_types_supported',
      { response_types_supported: undefined },
      ['response_types_supported'],
    ],
    ['an issuer with a query', { issuer: 'https://server.example.com/?a=b' }, ['issuer']],
    ['a javascript: userinfo endpoint', { userinfo_endpoint: 'javascript:alert(1)' }, ['userinfo_endpoint']],
    ['a data: op_policy_uri', { op_policy_uri: 'data:text/html,x' }, ['op_policy_uri']],
    [
      '"none" for token endpoint client assertions',
      { token_endpoint_auth_signing_alg_values_supported: ['none'] },
      ['token_endpoint_auth_signing_alg_values_supported'],
    ],
    [
      'claims_parameter_supported sent as a string',
      { claims_parameter_supported: 'yes' },
      ['claims_parameter_supported'],
    ],
  ])('rejects %s', (_case, change, paths) => {
    expect(failedPaths({ ...example(), ...change })).toEqual(paths);
  });

  it('reports every missing required member at once', () => {
    expect(failedPaths({ issuer: 'https://server.example.com' }).sort()).toEqual([
      'authorization_endpoint',
      'id_token_signing_alg_values_supported',
      'jwks_uri',
      'response_types_supported',
      'subject_types_supported',
    ]);
  });
});
