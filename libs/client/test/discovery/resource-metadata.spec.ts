import { afterEach, describe, expect, it } from '@jest/globals';
import { FakeAuthorizationServer } from '../support/authorization-server.fixture.js';
import { clientFor } from '../support/client.js';
import {
  FakeResourceServer,
  rpc,
  type FakeResourceServerOptions,
} from '../support/resource-server.fixture.js';

describe('protected resource metadata discovery (RFC 9728)', () => {
  const servers: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });

  async function stack(options: Partial<FakeResourceServerOptions> = {}) {
    const as = await FakeAuthorizationServer.start();
    const rs = await FakeResourceServer.start({ authorizationServers: () => [as], ...options });
    servers.push(as, rs);
    return { as, rs };
  }

  it('stops with resource_mismatch before any authorization server request when the PRM names another resource', async () => {
    const { as, rs } = await stack({
      metadata: (document) => ({ ...document, resource: 'https://evil.example/mcp' }),
    });
    const { fetch, store } = clientFor(rs);

    await expect(fetch(rs.url, rpc('tools/list'))).rejects.toMatchObject({ code: 'resource_mismatch' });

    expect(as.metadataRequests).toEqual([]);
    expect(as.authorizationRequests).toEqual([]);
    expect(as.registrations).toEqual([]);
    expect(await store.listTokens()).toEqual([]);
  });

  it('refuses a PRM from the challenge URL that names the origin instead of the resource being called', async () => {
    const { as, rs } = await stack({ metadata: (document) => ({ ...document, resource: rs.origin }) });
    const { fetch } = clientFor(rs);

    await expect(fetch(rs.url, rpc('tools/list'))).rejects.toMatchObject({ code: 'resource_mismatch' });
    expect(as.authorizationRequests).toEqual([]);
  });

  it('accepts a resource written with an uppercase host and sends it exactly as published', async () => {
    const { as, rs } = await stack({
      metadata: (document) => ({
        ...document,
        resource: (document['resource'] as string).replace('http://', 'HTTP://'),
      }),
    });
    const { fetch } = clientFor(rs);

    expect((await fetch(rs.url, rpc('tools/list'))).status).toBe(200);

    expect(as.authorizationRequests[0]?.get('resource')).toBe(rs.url.replace('http://', 'HTTP://'));
  });

  it('uses the resource_metadata URL of the challenge and no well-known URL', async () => {
    const { rs } = await stack({ metadataAt: 'header' });
    const { fetch } = clientFor(rs);

    expect((await fetch(rs.url, rpc('tools/list'))).status).toBe(200);
    expect(rs.metadataRequests).toEqual(['/.well-known/oauth-protected-resource/mcp']);
  });

  it('falls back to the path-inserted well-known URL without a resource_metadata parameter (2026-07-28)', async () => {
    const { rs } = await stack({ metadataAt: 'path-inserted' });
    const { fetch } = clientFor(rs);

    expect((await fetch(rs.url, rpc('tools/list'))).status).toBe(200);
    expect(rs.metadataRequests).toEqual(['/.well-known/oauth-protected-resource/mcp']);
  });

  it('tries the root well-known URL after a 404 and accepts the origin as the resource it was built from', async () => {
    const { as, rs } = await stack({ metadataAt: 'root' });
    const { fetch } = clientFor(rs);

    expect((await fetch(rs.url, rpc('tools/list'))).status).toBe(200);
    expect(rs.metadataRequests).toEqual([
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-protected-resource',
    ]);
    expect(as.authorizationRequests[0]!.get('resource')).toBe(rs.origin);
  });

  it('requires resource_metadata in the challenge under 2025-06-18', async () => {
    const { as, rs } = await stack({ metadataAt: 'path-inserted' });
    const { fetch } = clientFor(rs, { revision: '2025-06-18' });

    await expect(fetch(rs.url, rpc('tools/list'))).rejects.toMatchObject({
      code: 'resource_metadata_missing',
    });
    expect(rs.metadataRequests).toEqual([]);
    expect(as.authorizationRequests).toEqual([]);
  });

  it('refuses metadata without authorization servers', async () => {
    const { rs } = await stack({ metadata: (document) => ({ ...document, authorization_servers: [] }) });
    const { fetch } = clientFor(rs);

    await expect(fetch(rs.url, rpc('tools/list'))).rejects.toMatchObject({
      code: 'invalid_resource_metadata',
    });
  });

  it('chooses the authorization server selectAuthorizationServer returns, and refuses one the PRM does not list', async () => {
    const other = await FakeAuthorizationServer.start();
    servers.push(other);
    const { as, rs } = await stack({ authorizationServers: () => [as, other] });
    const chosen = clientFor(rs, { selectAuthorizationServer: (listed) => listed[1]! });
    expect((await chosen.fetch(rs.url, rpc('tools/list'))).status).toBe(200);
    expect(other.authorizationRequests).toHaveLength(1);
    expect(as.authorizationRequests).toHaveLength(0);

    const unlisted = clientFor(rs, { selectAuthorizationServer: () => 'https://elsewhere.example' });
    await expect(unlisted.fetch(rs.url, rpc('tools/list'))).rejects.toMatchObject({
      code: 'authorization_server_not_listed',
    });
  });
});
