import { describe, expect, it } from '@jest/globals';
import { ProtectedResourceMetadataSchema } from './protected-resource-metadata.schema.js';

// RFC 9728 section 3.2, the example response body, as printed.
const RFC_9728_EXAMPLE = `
{
 "resource":
   "https://resource.example.com",
 "authorization_servers":
   ["https://as1.example.com",
    "https://as2.example.net"],
 "bearer_methods_supported":
   ["header", "body"],
 "scopes_supported":
   ["profile", "email", "phone"],
 "resource_documentation":
   "https://resource.example.com/resource_documentation.html"
}`;

const example = (): Record<string, unknown> => JSON.parse(RFC_9728_EXAMPLE) as Record<string, unknown>;

function failedPaths(value: unknown): string[] {
  const result = ProtectedResourceMetadataSchema.safeParse(value);
  return result.success ? [] : result.error.issues.map((issue) => issue.path.join('.'));
}

describe('ProtectedResourceMetadataSchema', () => {
  it('parses the RFC 9728 section 3.2 example unchanged', () => {
    const document = example();
    expect(ProtectedResourceMetadataSchema.parse(document)).toEqual(document);
  });

  it('keeps unknown and language-tagged members', () => {
    const document = { ...example(), 'resource_name#it': 'La mia bella risorsa', mcp_extension: { a: 1 } };
    expect(ProtectedResourceMetadataSchema.parse(document)).toEqual(document);
  });

  it('accepts an MCP resource with a path and a loopback development resource', () => {
    expect(failedPaths({ ...example(), resource: 'https://mcp.example.com/public/mcp' })).toEqual([]);
    expect(
      failedPaths({
        resource: 'http://localhost:3000/mcp',
        authorization_servers: ['http://localhost:4000'],
      }),
    ).toEqual([]);
  });

  it.each<[string, Record<string, unknown>, string[]]>([
    ['a missing resource', { resource: undefined }, ['resource']],
    ['a relative resource', { resource: '/mcp' }, ['resource']],
    ['a resource with a fragment', { resource: 'https://resource.example.com/#' }, ['resource']],
    ['a plain-http resource on a public host', { resource: 'http://resource.example.com' }, ['resource']],
    ['a resource with userinfo', { resource: 'https://user@resource.example.com' }, ['resource']],
    [
      'missing authorization_servers (required by MCP)',
      { authorization_servers: undefined },
      ['authorization_servers'],
    ],
    ['an empty authorization_servers', { authorization_servers: [] }, ['authorization_servers']],
    [
      'an issuer with a query',
      { authorization_servers: ['https://as.example.com?tenant=1'] },
      ['authorization_servers.0'],
    ],
    ['a javascript: issuer', { authorization_servers: ['javascript:alert(1)'] }, ['authorization_servers.0']],
    [
      'a javascript: documentation URL',
      { resource_documentation: ' javascript:alert(1)' },
      ['resource_documentation'],
    ],
    ['a data: policy URL', { resource_policy_uri: 'data:text/html,x' }, ['resource_policy_uri']],
    ['a file: terms URL', { resource_tos_uri: 'file:///etc/passwd' }, ['resource_tos_uri']],
    ['a plain-http jwks_uri', { jwks_uri: 'http://resource.example.com/jwks.json' }, ['jwks_uri']],
    [
      '"none" as a signing algorithm',
      { resource_signing_alg_values_supported: ['RS256', 'none'] },
      ['resource_signing_alg_values_supported'],
    ],
    ['a scope with a space', { scopes_supported: ['files read'] }, ['scopes_supported.0']],
    [
      'a non-boolean flag',
      { dpop_bound_access_tokens_required: 'true' },
      ['dpop_bound_access_tokens_required'],
    ],
  ])('rejects %s', (_case, change, paths) => {
    expect(failedPaths({ ...example(), ...change })).toEqual(paths);
  });

  it.each([null, [], 'resource', 42])('rejects %j, which is not an object', (value) => {
    expect(ProtectedResourceMetadataSchema.safeParse(value).success).toBe(false);
  });
});
