// A toy extension's resource server hooks in the real protected server, over real HTTP: RFC 9728 2 (a member of its
// own in the protected resource metadata, beside the host's), RFC 6750 3 and RFC 9728 5.1 (an extra auth-parameter
// of the Bearer challenge, beside the host's). The template for booting the host with an extension in a test.
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { defineExtension, ExtensionRegistry } from '@portcullis/extensions';
import { ProtectedResourceMetadataSchema } from '@portcullis/metadata';
import { protectedResourceMetadataUrls } from '@portcullis/protocol';
import { startTestAuthorizationServer, type TestAuthorizationServer } from '@portcullis/testing';
import {
  bearerChallengeOf,
  callTool,
  countNotes,
  modernMessage,
  postMcp,
  toolJson,
} from '../support/mcp-requests.js';
import { startProtectedServer, type ProtectedServer } from '../support/protected-server.harness.js';

/**
 * Names the tenants the resource serves in its metadata, and on a 401 the tenant a client should sign in to. A
 * 403 (the client is signed in, with too narrow a scope) gets nothing: the contribution is a function of the
 * challenge.
 */
const tenantHint = defineExtension({
  id: 'com.example/tenant-hint',
  version: '1.0.0',
  resourceServer: {
    metadata: ({ resource }) => ({
      tenants_supported: ['acme', 'globex'],
      tenant_directory: `${new URL(resource).origin}/tenants`,
    }),
    challengeParameters: ({ status }): Record<string, string> => (status === 401 ? { tenant: 'acme' } : {}),
  },
});

describe('a resource server extension in the live protected server', () => {
  let as: TestAuthorizationServer;
  let app: ProtectedServer;
  const tokenWith = (claims: Record<string, unknown>) =>
    as.mint({ claims: { aud: app.resource, scope: 'notes:write', ...claims } });
  const createNote = (token?: string) =>
    postMcp(
      app,
      modernMessage('tools/call', { name: 'notes_create', arguments: { title: 'must not exist' } }),
      {
        ...(token ? { token } : {}),
      },
    );

  beforeAll(async () => {
    as = await startTestAuthorizationServer({ audience: 'set per token' });
    app = await startProtectedServer({
      authorizationServer: as.issuer,
      extensions: ExtensionRegistry.compose([tenantHint]),
    });
  });
  afterEach(async () => {
    await app.database.database.prisma.note.deleteMany();
  });
  afterAll(async () => {
    await app?.close();
    await as?.close();
  });

  it('publishes the extension members in the protected resource metadata, beside the host members', async () => {
    const response = await fetch(protectedResourceMetadataUrls(app.resource)[0]!);
    expect(response.status).toBe(200);
    const metadata = ProtectedResourceMetadataSchema.parse(await response.json());
    expect(metadata).toEqual({
      tenants_supported: ['acme', 'globex'],
      tenant_directory: `${app.url}/tenants`,
      resource: app.resource,
      authorization_servers: [as.issuer],
      scopes_supported: ['notes:read', 'notes:write'],
      bearer_methods_supported: ['header'],
      resource_name: 'Portcullis notes',
    });
  });

  it('adds its parameter to the 401 challenge of a request without a token, and persists nothing', async () => {
    const response = await createNote();
    expect(response.status).toBe(401);
    expect(bearerChallengeOf(response).params).toEqual({
      resource_metadata: protectedResourceMetadataUrls(app.resource)[0],
      scope: 'notes:write',
      tenant: 'acme',
    });
    expect(await countNotes(app)).toBe(0);
  });

  it('adds its parameter to the 401 invalid_token challenge of an expired token, and persists nothing', async () => {
    const now = Math.floor(Date.now() / 1000);
    const response = await createNote(await tokenWith({ iat: now - 600, exp: now - 120 }));
    expect(response.status).toBe(401);
    const { params } = bearerChallengeOf(response);
    expect(params).toMatchObject({
      error: 'invalid_token',
      resource_metadata: protectedResourceMetadataUrls(app.resource)[0],
      tenant: 'acme',
    });
    expect(((await response.json()) as { error: string }).error).toBe('invalid_token');
    expect(await countNotes(app)).toBe(0);
  });

  it('adds nothing to a 403 challenge, for which its function returns no parameter, and persists nothing', async () => {
    const response = await createNote(await tokenWith({ scope: 'notes:read' }));
    expect(response.status).toBe(403);
    expect(bearerChallengeOf(response).params).toEqual({
      error: 'insufficient_scope',
      scope: 'notes:write',
      resource_metadata: protectedResourceMetadataUrls(app.resource)[0],
      error_description: 'This operation needs the scope notes:write.',
    });
    expect(await countNotes(app)).toBe(0);
  });

  it('changes nothing for an accepted token: the tool runs and no challenge is sent', async () => {
    const response = await callTool(app, await tokenWith({}), 'notes_create', { title: 'allowed' });
    expect(response.headers.get('www-authenticate')).toBeNull();
    expect((await toolJson<{ title: string }>(response)).title).toBe('allowed');
    expect(await countNotes(app)).toBe(1);
  });
});
