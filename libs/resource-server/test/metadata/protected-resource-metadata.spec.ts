import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { defineExtension, ExtensionRegistry } from '@portcullis/extensions';
import { ProtectedResourceMetadataSchema } from '@portcullis/metadata';
import { ResourceServerConfigError } from '../../src/index.js';
import { ResourceServerModule } from '../../src/nest/index.js';
import { bearerChallengeOf } from '../support/http.js';
import { startProtectedTestApp, type ProtectedTestApp } from '../support/protected-test-app.js';

const RESOURCE = 'http://127.0.0.1:9/api';
const ISSUER = 'http://127.0.0.1:8';

const tenantHint = defineExtension({
  id: 'com.example/tenant-hint',
  version: '1.0.0',
  resourceServer: {
    metadata: ({ revision }) => ({ tenant_hint_supported: true, tenant_hint_revision: revision }),
    challengeParameters: { tenant_hint: 'default' },
  },
});

describe('the protected resource metadata document', () => {
  let app: ProtectedTestApp;

  beforeAll(async () => {
    app = await startProtectedTestApp({
      resource: 'HTTP://127.0.0.1:9/api',
      authorizationServers: [ISSUER],
      scopesSupported: ['notes:read', 'notes:write'],
      resourceName: 'Test notes',
      extensions: ExtensionRegistry.compose([tenantHint]),
    });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('is served at the path-inserted well-known URL with the canonical resource', async () => {
    const response = await fetch(`${app.url}/.well-known/oauth-protected-resource/api`);
    expect(response.status).toBe(200);
    const document = (await response.json()) as Record<string, unknown>;
    expect(ProtectedResourceMetadataSchema.safeParse(document).success).toBe(true);
    expect(document).toEqual({
      tenant_hint_supported: true,
      tenant_hint_revision: '2026-07-28',
      resource: RESOURCE,
      authorization_servers: [ISSUER],
      scopes_supported: ['notes:read', 'notes:write'],
      bearer_methods_supported: ['header'],
      resource_name: 'Test notes',
    });
  });

  it('is not served at the root well-known URL, which would describe another resource', async () => {
    expect((await fetch(`${app.url}/.well-known/oauth-protected-resource`)).status).toBe(404);
  });

  it('allows any origin and answers CORS preflights', async () => {
    const response = await fetch(`${app.url}/.well-known/oauth-protected-resource/api`, {
      headers: { origin: 'https://app.example' },
    });
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    const preflight = await fetch(`${app.url}/.well-known/oauth-protected-resource/api`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://app.example',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'mcp-protocol-version',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-methods')).toContain('GET');
  });

  it('adds the extensions’ challenge parameters to the host’s own', async () => {
    const response = await fetch(`${app.url}/api/me`);
    expect(bearerChallengeOf(response).params).toMatchObject({
      tenant_hint: 'default',
      resource_metadata: 'http://127.0.0.1:9/.well-known/oauth-protected-resource/api',
    });
  });
});

describe('a resource that cannot describe itself correctly', () => {
  it('does not boot without an authorization server', () => {
    expect(() => ResourceServerModule.forRoot({ resource: RESOURCE, authorizationServers: [] })).toThrow(
      ResourceServerConfigError,
    );
  });

  it('does not boot when asked to publish offline_access', () => {
    expect(() =>
      ResourceServerModule.forRoot({
        resource: RESOURCE,
        authorizationServers: [ISSUER],
        scopesSupported: ['offline_access'],
      }),
    ).toThrow(/offline_access/);
  });
});
