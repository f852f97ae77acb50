import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  Client,
  DpopSession,
  extractWWWAuthenticateParams,
  InsufficientScopeError,
  StreamableHTTPClientTransport,
  withDpop,
} from '@modelcontextprotocol/client';
import { protectedResourceMetadataUrls } from '@portcullis/protocol';
import { startTestAuthorizationServer, type TestAuthorizationServer } from '@portcullis/testing';
import { modernMessage, postMcp } from '../support/mcp-requests.js';
import { startProtectedServer, type ProtectedServer } from '../support/protected-server.harness.js';

const STATELESS = { versionNegotiation: { mode: { pin: '2026-07-28' as const } } };

describe('the official MCP client SDK against a protected server with DPoP composed but optional', () => {
  let as: TestAuthorizationServer;
  let app: ProtectedServer;

  beforeAll(async () => {
    as = await startTestAuthorizationServer({ audience: 'set per token' });
    app = await startProtectedServer({
      authorizationServer: as.issuer,
      env: { EXTENSIONS: 'dpop', DPOP_NONCE: 'on' },
    });
  });
  afterAll(async () => {
    await app?.close();
    await as?.close();
  });

  it('reads resource_metadata and scope of the two-challenge 401', async () => {
    const response = await postMcp(app, modernMessage('tools/list'));
    expect(response.status).toBe(401);
    const params = extractWWWAuthenticateParams(response);
    expect(params.resourceMetadataUrl?.href).toBe(protectedResourceMetadataUrls(app.resource)[0]);
    expect(params.scope).toBe('notes:read notes:write');
    expect(params.error).toBeUndefined();
  });

  it('reads the error and scope of a Bearer request’s 403', async () => {
    const token = await as.mint({ claims: { aud: app.resource, scope: 'notes:read' } });
    const response = await postMcp(
      app,
      modernMessage('tools/call', { name: 'notes_create', arguments: { title: 'x' } }),
      { token },
    );
    expect(response.status).toBe(403);
    const params = extractWWWAuthenticateParams(response);
    expect(params.error).toBe('insufficient_scope');
    expect(params.scope).toBe('notes:write');
    expect(params.resourceMetadataUrl?.href).toBe(protectedResourceMetadataUrls(app.resource)[0]);
  });

  it('works with a Bearer token, step-up included', async () => {
    let token = await as.mint({ claims: { aud: app.resource, sub: 'sdk-bearer', scope: 'notes:read' } });
    const client = new Client({ name: 'portcullis-tests', version: '1.0.0' }, STATELESS);
    await client.connect(
      new StreamableHTTPClientTransport(new URL(app.mcpUrl), {
        authProvider: { token: async () => token },
        onInsufficientScope: 'throw',
      }),
    );
    try {
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
      await expect(
        client.callTool({ name: 'notes_create', arguments: { title: 'x' } }),
      ).rejects.toBeInstanceOf(InsufficientScopeError);
      token = await as.mint({ claims: { aud: app.resource, sub: 'sdk-bearer', scope: 'notes' } });
      const created = await client.callTool({ name: 'notes_create', arguments: { title: 'after step-up' } });
      expect(created.isError).toBeFalsy();
    } finally {
      await client.close();
    }
  });

  it('works with a DPoP-bound token through the SDK’s DPoP fetch, answering the nonce challenge itself', async () => {
    const session = await DpopSession.create({ alg: 'ES256' });
    const token = await as.mint({
      claims: { aud: app.resource, sub: 'sdk-dpop', scope: 'notes', cnf: { jkt: session.thumbprint } },
    });
    const client = new Client({ name: 'portcullis-tests', version: '1.0.0' }, STATELESS);
    await client.connect(
      new StreamableHTTPClientTransport(new URL(app.mcpUrl), {
        authProvider: { token: async () => token },
        fetch: withDpop(session, async () => token)(fetch),
      }),
    );
    try {
      const created = await client.callTool({ name: 'notes_create', arguments: { title: 'bound' } });
      expect(created.isError).toBeFalsy();
      expect(await app.database.database.prisma.note.count({ where: { owner: 'sdk-dpop' } })).toBe(1);
    } finally {
      await client.close();
    }
  });
});
