import { describe, expect, it } from '@jest/globals';
import { defineExtension, ExtensionRegistry } from '@portcullis/extensions';
import { ProtectedResourceMetadataSchema } from '@portcullis/metadata';
import { createResourceServer, ResourceServerConfigError } from '../../src/index.js';

const ISSUER = 'http://127.0.0.1:8/as';
const ORIGIN = 'http://127.0.0.1:9';
const RESOURCE = `${ORIGIN}/public/mcp`;

const resourceServer = createResourceServer({
  resource: RESOURCE,
  authorizationServers: [ISSUER],
  scopesSupported: ['notes:read', 'notes:write'],
  resourceName: 'Test notes',
  extensions: ExtensionRegistry.compose([
    defineExtension({
      id: 'com.example/tenant',
      version: '1.0.0',
      resourceServer: { metadata: { tenant_hint_supported: true } },
    }),
  ]),
});
const metadata = resourceServer.metadataHandler();

const EXPECTED = {
  tenant_hint_supported: true,
  resource: RESOURCE,
  authorization_servers: [ISSUER],
  scopes_supported: ['notes:read', 'notes:write'],
  bearer_methods_supported: ['header'],
  resource_name: 'Test notes',
};

describe('metadataHandler: the RFC 9728 document of a web-standard resource', () => {
  it('lists the path-inserted well-known path first, then the root one', () => {
    expect(resourceServer.metadataPaths).toEqual([
      '/.well-known/oauth-protected-resource/public/mcp',
      '/.well-known/oauth-protected-resource',
    ]);
  });

  it.each(resourceServer.metadataPaths)(
    'serves the resource’s own document at %s, readable from any origin',
    async (path) => {
      const response = await metadata(
        new Request(`${ORIGIN}${path}`, { headers: { origin: 'https://app.example' } }),
      );
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/json');
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(response.headers.get('cache-control')).toBe('public, max-age=300');
      const document = (await response.json()) as Record<string, unknown>;
      expect(document).toEqual(EXPECTED);
      expect(ProtectedResourceMetadataSchema.safeParse(document).success).toBe(true);
    },
  );

  it('answers HEAD without a body and a preflight with 204', async () => {
    const head = await metadata(
      new Request(`${ORIGIN}/.well-known/oauth-protected-resource`, { method: 'HEAD' }),
    );
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    const preflight = await metadata(
      new Request(`${ORIGIN}/.well-known/oauth-protected-resource/public/mcp`, {
        method: 'OPTIONS',
        headers: { origin: 'https://app.example', 'access-control-request-method': 'GET' },
      }),
    );
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-methods')).toBe('GET, OPTIONS');
  });

  it('refuses other methods with 405 and other paths with 404, as invalid_request', async () => {
    const post = await metadata(
      new Request(`${ORIGIN}/.well-known/oauth-protected-resource`, { method: 'POST' }),
    );
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    expect(await post.json()).toEqual({ error: 'invalid_request', error_description: 'method not allowed' });
    const elsewhere = await metadata(new Request(`${ORIGIN}/.well-known/oauth-protected-resource/other`));
    expect(elsewhere.status).toBe(404);
    expect(await elsewhere.json()).toEqual({
      error: 'invalid_request',
      error_description: 'no such endpoint',
    });
  });

  it('serves a path-less resource at the root well-known path only', () => {
    const root = createResourceServer({ resource: `${ORIGIN}/`, authorizationServers: [ISSUER] });
    expect(root.metadataPaths).toEqual(['/.well-known/oauth-protected-resource']);
    expect(root.metadataDocument().resource).toBe(ORIGIN);
  });

  it('refuses to create a resource server whose options are unusable, naming the option', () => {
    expect(() => createResourceServer({ resource: RESOURCE, authorizationServers: [] })).toThrow(
      ResourceServerConfigError,
    );
    expect(() =>
      createResourceServer({
        resource: RESOURCE,
        authorizationServers: [ISSUER],
        scopesSupported: ['offline_access'],
      }),
    ).toThrow(/offline_access/);
  });
});
