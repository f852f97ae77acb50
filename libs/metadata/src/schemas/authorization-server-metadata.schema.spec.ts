import { describe, expect, it } from '@jest/globals';
import { AuthorizationServerMetadataSchema } from './authorization-server-metadata.schema.js';

// RFC 8414 section 3.2, the example response body, as printed. `userinfo_endpoint` is an OpenID Connect member
// and `service_documentation` is plain http: both must pass.
const RFC_8414_EXAMPLE = `
{
 "issuer":
   "https://server.example.com",
 "authorization_endpoint":
   "https://server.example.com/authorize",
 "token_endpoint":
   "https://server.example.com/token",
 "token_endpoint_auth_methods_supported":
   ["client_secret_basic", "private_key_jwt"],
 "token_endpoint_auth_signing_alg_values_supported":
   ["RS256", "ES256"],
 "userinfo_endpoint":
   "https://server.example.com/userinfo",
 "jwks_uri":
   "https://server.example.com/jwks.json",
 "registration_endpoint":
   "https://server.example.com/register",
 "scopes_supported":
   ["openid", "profile", "email", "address",
    "phone", "offline_access"],
 "response_types_supported":
   ["code", "code token"],
 "service_documentation":
   "http://server.example.com/service_documentation.html",
 "ui_locales_supported":
   ["en-US", "en-GB", "en-CA", "fr-FR", "fr-CA"]
}`;

const example = (): Record<string, unknown> => JSON.parse(RFC_8414_EXAMPLE) as Record<string, unknown>;

function failedPaths(value: unknown): string[] {
  const result = AuthorizationServerMetadataSchema.safeParse(value);
  return result.success ? [] : result.error.issues.map((issue) => issue.path.join('.'));
}

describe('AuthorizationServerMetadataSchema', () => {
  it('parses the RFC 8414 section 3.2 example unchanged, keeping the OIDC userinfo_endpoint', () => {
    const document = example();
    const parsed = AuthorizationServerMetadataSchema.parse(document);
    expect(parsed).toEqual(document);
    expect(parsed['userinfo_endpoint']).toBe('https://server.example.com/userinfo');
  });

  it('reads the RFC 9207 and Client ID Metadata Document flags', () => {
    const parsed = AuthorizationServerMetadataSchema.parse({
      ...example(),
      authorization_response_iss_parameter_supported: true,
      client_id_metadata_document_supported: true,
      code_challenge_methods_supported: ['S256'],
    });
    expect(parsed.authorization_response_iss_parameter_supported).toBe(true);
    expect(parsed.client_id_metadata_document_supported).toBe(true);
    expect(parsed.code_challenge_methods_supported).toEqual(['S256']);
  });

  it('accepts an issuer with a path and a loopback development issuer', () => {
    expect(failedPaths({ ...example(), issuer: 'https://auth.example.com/tenant1' })).toEqual([]);
    expect(
      failedPaths({
        issuer: 'http://localhost:4000',
        token_endpoint: 'http://localhost:4000/token',
        response_types_supported: ['code'],
      }),
    ).toEqual([]);
  });

  it.each<[string, Record<string, unknown>, string[]]>([
    ['a missing issuer', { issuer: undefined }, ['issuer']],
    ['an issuer with a query', { issuer: 'https://server.example.com?x=1' }, ['issuer']],
    ['an issuer with an empty fragment', { issuer: 'https://server.example.com#' }, ['issuer']],
    ['a plain-http issuer on a public host', { issuer: 'http://server.example.com' }, ['issuer']],
    [
      'missing response_types_supported',
      { response_types_supported: undefined },
      ['response_types_supported'],
    ],
    ['a relative token endpoint', { token_endpoint: '/token' }, ['token_endpoint']],
    [
      'a plain-http token endpoint on a public host',
      { token_endpoint: 'http://server.example.com/token' },
      ['token_endpoint'],
    ],
    [
      'an authorization endpoint that is a command',
      { authorization_endpoint: 'a:$(cmd.exe%20/c%20calc)' },
      ['authorization_endpoint'],
    ],
    [
      'a javascript: authorization endpoint',
      { authorization_endpoint: 'JavaScript:alert(document.domain)' },
      ['authorization_endpoint'],
    ],
    [
      'a registration endpoint with a fragment',
      { registration_endpoint: 'https://server.example.com/register#x' },
      ['registration_endpoint'],
    ],
    ['a file: jwks_uri', { jwks_uri: 'file:///etc/passwd' }, ['jwks_uri']],
    [
      'a vbscript: service documentation',
      { service_documentation: 'vbscript:msgbox(1)' },
      ['service_documentation'],
    ],
    [
      '"none" for token endpoint client assertions',
      { token_endpoint_auth_signing_alg_values_supported: ['none'] },
      ['token_endpoint_auth_signing_alg_values_supported'],
    ],
    [
      '"none" for introspection client assertions',
      { introspection_endpoint_auth_signing_alg_values_supported: ['RS256', 'none'] },
      ['introspection_endpoint_auth_signing_alg_values_supported'],
    ],
    [
      'an iss flag sent as a string',
      { authorization_response_iss_parameter_supported: 'true' },
      ['authorization_response_iss_parameter_supported'],
    ],
    [
      'a CIMD flag sent as a number',
      { client_id_metadata_document_supported: 1 },
      ['client_id_metadata_document_supported'],
    ],
    ['a scope with a quote', { scopes_supported: ['openid', 'a"b'] }, ['scopes_supported.1']],
  ])('rejects %s', (_case, change, paths) => {
    expect(failedPaths({ ...example(), ...change })).toEqual(paths);
  });
});
