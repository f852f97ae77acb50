import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ProtectedResourceMetadataSchema } from '@portcullis/metadata';
import { protectedResourceMetadataUrls } from '@portcullis/protocol';
import { bearerChallengeOf, callTool, modernMessage, postMcp, toolJson } from '../support/mcp-requests.js';
import { startProtectedServer, type ProtectedServer } from '../support/protected-server.harness.js';
import { startTestAuthorizationServer, type TestAuthorizationServer } from '@portcullis/testing';

describe('discovery from the first 401 (MCP "Authorization Flow Steps", RFC 9728 Section 5.1)', () => {
  let as: TestAuthorizationServer;
  let app: ProtectedServer;

  beforeAll(async () => {
    as = await startTestAuthorizationServer({ audience: 'set per token' });
    app = await startProtectedServer({ authorizationServer: as.issuer });
  });
  afterAll(async () => {
    await app?.close();
    await as?.close();
  });

  it('answers a request without a token with 401 and a resource_metadata URL that resolves to the PRM', async () => {
    const unauthorized = await postMcp(app, modernMessage('tools/list'));
    expect(unauthorized.status).toBe(401);
    const challenge = bearerChallengeOf(unauthorized);
    expect(challenge.params['error']).toBeUndefined();
    expect(challenge.params['scope']).toBe('notes:read notes:write');

    const metadataUrl = challenge.params['resource_metadata']!;
    expect(metadataUrl).toBe(protectedResourceMetadataUrls(app.resource)[0]);
    const response = await fetch(metadataUrl);
    expect(response.status).toBe(200);
    const metadata = ProtectedResourceMetadataSchema.parse(await response.json());
    expect(metadata).toMatchObject({
      resource: app.resource,
      authorization_servers: [as.issuer],
      scopes_supported: ['notes:read', 'notes:write'],
      bearer_methods_supported: ['header'],
    });
    expect(metadata.scopes_supported).not.toContain('offline_access');
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('accepts a token whose audience is exactly the PRM resource', async () => {
    const metadata = (await (await fetch(protectedResourceMetadataUrls(app.resource)[0]!)).json()) as {
      resource: string;
    };
    const token = await as.mint({ claims: { aud: metadata.resource, scope: 'notes:read' } });
    expect(await toolJson<unknown[]>(await callTool(app, token, 'notes_list'))).toEqual([]);
  });
});

describe('EXTRA_AUTHORIZATION_SERVERS', () => {
  let first: TestAuthorizationServer;
  let second: TestAuthorizationServer;
  let app: ProtectedServer;

  beforeAll(async () => {
    first = await startTestAuthorizationServer({ audience: 'set per token' });
    second = await startTestAuthorizationServer({ audience: 'set per token' });
    app = await startProtectedServer({
      authorizationServer: first.issuer,
      env: { EXTRA_AUTHORIZATION_SERVERS: second.issuer },
    });
  });
  afterAll(async () => {
    await app?.close();
    await second?.close();
    await first?.close();
  });

  it('lists every issuer in the metadata, the main one first, and accepts tokens from each', async () => {
    const metadata = (await (await fetch(protectedResourceMetadataUrls(app.resource)[0]!)).json()) as {
      authorization_servers: string[];
    };
    expect(metadata.authorization_servers).toEqual([first.issuer, second.issuer]);
    for (const issuer of [first, second]) {
      const token = await issuer.mint({ claims: { aud: app.resource, scope: 'notes:read' } });
      const response = await postMcp(app, modernMessage('tools/list'), { token });
      expect(response.status).toBe(200);
    }
  });

  it('refuses a value that is not a list of issuer URLs, naming the variable', async () => {
    await expect(
      startProtectedServer({
        authorizationServer: first.issuer,
        env: { EXTRA_AUTHORIZATION_SERVERS: 'http://evil.example' },
      }),
    ).rejects.toThrow(
      'EXTRA_AUTHORIZATION_SERVERS http://evil.example must be https (http only on a loopback host)',
    );
  });
});
