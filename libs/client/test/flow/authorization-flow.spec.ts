import { afterEach, describe, expect, it } from '@jest/globals';
import { FakeAuthorizationServer } from '../support/authorization-server.fixture.js';
import { clientFor } from '../support/client.js';
import { startServer } from '../support/http-server.js';
import { createAuthorizedFetch } from '../../src/authorized-fetch.js';
import { HeadlessUserAgent } from '../../src/user-agent/headless-user-agent.js';
import { FakeResourceServer, rpc } from '../support/resource-server.fixture.js';

describe('the authorization flow of MCP "Authorization Flow Steps"', () => {
  const servers: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });

  async function stack() {
    const as = await FakeAuthorizationServer.start({
      scopesSupported: ['notes:read', 'notes:write', 'offline_access'],
    });
    const rs = await FakeResourceServer.start({
      authorizationServers: () => [as],
      challengeScope: ['notes:read'],
    });
    servers.push(as, rs);
    return { as, rs };
  }

  it('answers a 401 by authorizing and retries the request once with the bearer token', async () => {
    const { as, rs } = await stack();
    const { fetch } = clientFor(rs);

    const response = await fetch(rs.url, rpc('tools/list'));

    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ ok: true, method: 'tools/list' });
    expect(rs.requests.map((request) => request.status)).toEqual([401, 200]);
    expect(rs.requests[0]!.authorization).toBeUndefined();
    expect(rs.requests[1]!.authorization).toMatch(/^Bearer at-[0-9a-f]+$/);
    expect(as.authorizationRequests).toHaveLength(1);
    expect(as.grants('authorization_code')).toHaveLength(1);
  });

  it('sends PKCE S256, state, resource exactly as the metadata publishes it, and the challenged scope', async () => {
    const { as, rs } = await stack();
    const { fetch } = clientFor(rs);

    await fetch(rs.url, rpc('tools/list'));

    const request = as.authorizationRequests[0]!;
    expect(request.get('response_type')).toBe('code');
    expect(request.get('code_challenge_method')).toBe('S256');
    expect(request.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(request.get('state')).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(request.get('resource')).toBe(rs.url);
    expect(request.get('scope')).toBe('notes:read offline_access');
    expect(request.get('prompt')).toBe('consent');
    const token = as.grants('authorization_code')[0]!.params;
    expect(token.get('resource')).toBe(rs.url);
    expect(token.get('code_verifier')).toMatch(/^[A-Za-z0-9_~.-]{43,128}$/);
    expect(token.get('redirect_uri')).toBe(request.get('redirect_uri'));
  });

  it('re-uses stored tokens for the next request without asking the authorization server again', async () => {
    const { as, rs } = await stack();
    const { fetch } = clientFor(rs);

    await fetch(rs.url, rpc('tools/list'));
    const second = await fetch(rs.url, rpc('tools/call', { name: 'notes_list' }));

    expect(second.status).toBe(200);
    expect(as.authorizationRequests).toHaveLength(1);
    expect(rs.requests.map((request) => request.status)).toEqual([401, 200, 200]);
  });

  it('reports each step of the flow, in order, without any token in the messages', async () => {
    const { rs } = await stack();
    const { fetch, progress, store } = clientFor(rs);

    await fetch(rs.url, rpc('tools/list'));

    expect(progress.map((event) => event.step)).toEqual([
      'challenge',
      'resource_metadata',
      'authorization_server',
      'client_id',
      'client_id',
      'authorization_request',
      'callback',
      'token',
      'retry',
    ]);
    const [tokens] = await store.findTokens(rs.url);
    const text = progress.map((event) => event.message).join('\n');
    expect(text).not.toContain(tokens!.accessToken);
    expect(text).not.toContain(tokens!.refreshToken);
  });

  it('passes requests to other URLs through untouched, without a token', async () => {
    const { rs } = await stack();
    const seen: (string | undefined)[] = [];
    const other = await startServer((request, response) => {
      seen.push(request.headers.authorization);
      response.writeHead(204).end();
    });
    servers.push(other);
    const { fetch } = clientFor(rs);
    await fetch(rs.url, rpc('tools/list'));

    const response = await fetch(`${other.url}/mcp`, rpc('tools/list'));

    expect(response.status).toBe(204);
    expect(seen).toEqual([undefined]);
  });

  it('returns a 401 from another origin a redirect led to, without running the flow for it', async () => {
    const elsewhere = await startServer((_request, response) => {
      response
        .writeHead(401, { 'www-authenticate': 'Bearer resource_metadata="http://127.0.0.1:1/.well-known/x"' })
        .end();
    });
    const resource = await startServer((_request, response) => {
      response.writeHead(307, { location: `${elsewhere.url}/login` }).end();
    });
    servers.push(elsewhere, resource);
    const progress: string[] = [];
    const fetch = createAuthorizedFetch({
      resource: `${resource.url}/mcp`,
      userAgent: new HeadlessUserAgent(),
      onProgress: (event) => progress.push(event.step),
    });

    const response = await fetch(`${resource.url}/mcp`, rpc('tools/list'));

    expect(response.status).toBe(401);
    expect(progress).toEqual([]);
  });

  it('gives up with token_rejected when the resource keeps refusing tokens it was just given', async () => {
    const trusted = await FakeAuthorizationServer.start();
    const named = await FakeAuthorizationServer.start();
    const rs = await FakeResourceServer.start({
      authorizationServers: () => [trusted],
      metadata: (document) => ({ ...document, authorization_servers: [named.issuer] }),
    });
    servers.push(trusted, named, rs);
    const { fetch } = clientFor(rs);

    await expect(fetch(rs.url, rpc('tools/list'))).rejects.toMatchObject({ code: 'token_rejected' });
    expect(named.authorizationRequests).toHaveLength(2);
    expect(rs.requests.map((request) => request.status)).toEqual([401, 401, 401]);
  });

  it('runs one authorization for 10 concurrent first requests', async () => {
    const { as, rs } = await stack();
    const { fetch } = clientFor(rs);

    const responses = await Promise.all(Array.from({ length: 10 }, () => fetch(rs.url, rpc('tools/list'))));

    expect(responses.map((response) => response.status)).toEqual(Array(10).fill(200));
    expect(as.authorizationRequests).toHaveLength(1);
    expect(as.registrations).toHaveLength(1);
  });
});
