import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { OAuthError } from '@portcullis/protocol';
import { getRevision } from '@portcullis/revisions';
import type { RegistrationContext } from './registration-check.js';
import { REGISTRATION_CHECKS } from './registration.checks.js';

/** Runs every check on a body; the settled context, or the OAuth error it was refused with. */
function run(
  body: unknown,
  revision = '2026-07-28',
  extra: Partial<RegistrationContext> = {},
): RegistrationContext | OAuthError {
  const context: RegistrationContext = {
    body,
    revision: getRevision(revision),
    grantTypesSupported: ['authorization_code', 'refresh_token'],
    ...extra,
  };
  try {
    for (const check of REGISTRATION_CHECKS) check.run(context);
    return context;
  } catch (error) {
    if (error instanceof OAuthError) return error;
    throw error;
  }
}

const native = (extra: Record<string, unknown> = {}) => ({
  redirect_uris: ['http://127.0.0.1/cb'],
  token_endpoint_auth_method: 'none',
  application_type: 'native',
  ...extra,
});

describe('the registration checks', () => {
  it('settle defaults from RFC 7591 2 for a minimal registration', () => {
    const context = run({ redirect_uris: ['https://app.example/cb'], application_type: 'web' });
    expect(context).not.toBeInstanceOf(OAuthError);
    expect(context).toMatchObject({
      grantTypes: ['authorization_code'],
      responseTypes: ['code'],
      tokenEndpointAuthMethod: 'client_secret_basic',
      applicationType: 'web',
      redirectUris: ['https://app.example/cb'],
    });
  });

  describe('derive an absent application_type as MCP has the client send it, under every revision', () => {
    const cursor = { privateUseSchemes: ['cursor'] };
    it.each<[string[], string]>([
      [['https://claude.ai/api/mcp/auth_callback'], 'web'],
      [['http://127.0.0.1/cb'], 'native'],
      [['cursor://anysphere.cursor-mcp/oauth/callback'], 'native'],
      [['https://www.cursor.com/agents/mcp/oauth/callback', 'http://localhost:8787/callback'], 'native'],
    ])('%j as %s', (redirectUris, expected) => {
      for (const revision of ['2025-06-18', '2025-11-25', '2026-07-28']) {
        const body = { redirect_uris: redirectUris, token_endpoint_auth_method: 'none' };
        expect(run(body, revision, cursor)).toMatchObject({ applicationType: expected });
      }
    });
  });

  it('accept https redirect URIs for native (RFC 8252 7.2) and refuse loopback or private-use ones for web', () => {
    const vscode = ['https://vscode.dev/redirect', 'http://127.0.0.1/', 'http://127.0.0.1:33418/'];
    expect(run(native({ redirect_uris: vscode }))).toMatchObject({ applicationType: 'native' });
    expect(run(native({ redirect_uris: ['https://app.example/cb'] }))).toMatchObject({
      applicationType: 'native',
    });
    expect(run(native({ application_type: 'web' }))).toMatchObject({
      code: 'invalid_client_metadata',
      description: expect.stringContaining('application_type web takes https redirect_uris only'),
    });
    const privateUse = native({ application_type: 'web', redirect_uris: ['cursor://a.b/cb'] });
    expect(run(privateUse, '2026-07-28', { privateUseSchemes: ['cursor'] })).toMatchObject({
      code: 'invalid_client_metadata',
    });
  });

  it('accept a private-use redirect URI only of a scheme the operator allows', () => {
    const body = native({ redirect_uris: ['cursor://anysphere.cursor-mcp/oauth/callback'] });
    expect(run(body)).toMatchObject({ code: 'invalid_redirect_uri' });
    expect(run(body, '2026-07-28', { privateUseSchemes: ['cursor'] })).toMatchObject({
      redirectUris: ['cursor://anysphere.cursor-mcp/oauth/callback'],
    });
  });

  it('leave out the grant types the server does not offer, refuse those only the operator registers', () => {
    const device = 'urn:ietf:params:oauth:grant-type:device_code';
    expect(run(native({ grant_types: ['authorization_code', 'refresh_token', device] }))).toMatchObject({
      grantTypes: ['authorization_code', 'refresh_token'],
    });
    expect(run(native({ grant_types: [device] }))).toMatchObject({
      code: 'invalid_client_metadata',
      description: `grant_types not supported: ${device} (offered: authorization_code refresh_token)`,
    });
    const operator = {
      grantTypesSupported: ['authorization_code', 'refresh_token', 'client_credentials'],
      operatorGrants: ['client_credentials'],
    };
    expect(
      run(native({ grant_types: ['authorization_code', 'client_credentials'] }), '2026-07-28', operator),
    ).toMatchObject({
      code: 'invalid_client_metadata',
      description: expect.stringContaining('registered by the operator'),
    });
  });

  it('accept only https or loopback http redirect URIs without fragment or wildcard, whatever the string', () => {
    // No private-use scheme is allowed here (the default).
    fc.assert(
      fc.property(
        fc.oneof(fc.webUrl({ withFragments: true, withQueryParameters: true }), fc.string()),
        (uri) => {
          const result = run({ redirect_uris: [uri], token_endpoint_auth_method: 'none' }, '2025-06-18');
          if (result instanceof OAuthError) {
            expect(['invalid_redirect_uri', 'invalid_client_metadata']).toContain(result.code);
            return;
          }
          const url = new URL(uri);
          expect(
            url.protocol === 'https:' ||
              ['localhost', '[::1]'].includes(url.hostname) ||
              url.hostname.startsWith('127.'),
          ).toBe(true);
          expect(uri).not.toMatch(/[#*]/);
        },
      ),
    );
  });

  it('refuse a member named __proto__, constructor or prototype at any depth', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('__proto__', 'constructor', 'prototype'),
        fc.array(fc.string({ minLength: 1, maxLength: 5 }), { maxLength: 4 }),
        (name, path) => {
          // JSON.parse makes __proto__ an own member, as the parser of a request body does.
          let value = JSON.parse(`{${JSON.stringify(name)}: {"polluted": true}}`) as unknown;
          for (const key of path.reverse()) value = { [key]: value };
          const result = run({ ...native(), jwks: { keys: [] }, extra: value });
          expect(result).toBeInstanceOf(OAuthError);
          expect((result as OAuthError).code).toBe('invalid_client_metadata');
          expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
        },
      ),
    );
  });

  it('never let an arbitrary JSON body through without a redirect URI for the code grant', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (body) => {
        const result = run(body);
        if (!(result instanceof OAuthError)) expect(result.redirectUris?.length).toBeGreaterThan(0);
      }),
    );
  });
});
