import { afterEach, describe, expect, it } from '@jest/globals';
import { FakeAuthorizationServer } from '../support/authorization-server.fixture.js';
import { clientFor } from '../support/client.js';
import { FakeResourceServer, rpc } from '../support/resource-server.fixture.js';

// notes_create needs notes:write; everything else notes:read (the protected server's tools).
function requiredScopes(body: Record<string, unknown>): string[] {
  const params = body['params'] as { name?: string } | undefined;
  return body['method'] === 'tools/call' && params?.name === 'notes_create'
    ? ['notes:write']
    : ['notes:read'];
}

describe('step-up authorization on insufficient_scope (MCP 2026-07-28 "Step-Up Authorization Flow")', () => {
  const servers: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });

  async function stack(required: (body: Record<string, unknown>) => readonly string[] = requiredScopes) {
    const as = await FakeAuthorizationServer.start({ withheldScopes: ['notes:admin'] });
    const rs = await FakeResourceServer.start({
      authorizationServers: () => [as],
      challengeScope: ['notes:read'],
      scopesSupported: ['notes:read', 'notes:write'],
      requiredScopes: required,
    });
    servers.push(as, rs);
    return { as, rs };
  }

  it('re-authorizes with the union of the scopes asked before and the challenged ones, then retries', async () => {
    const { as, rs } = await stack();
    const { fetch } = clientFor(rs);
    await fetch(rs.url, rpc('tools/list'));

    const response = await fetch(rs.url, rpc('tools/call', { name: 'notes_create' }));

    expect(response.status).toBe(200);
    expect(as.authorizationRequests.map((request) => request.get('scope'))).toEqual([
      'notes:read',
      'notes:read notes:write',
    ]);
    expect(rs.requests.map((request) => request.status)).toEqual([401, 200, 403, 200]);
  });

  it('does not step up under 2025-06-18: the 403 is returned to the caller', async () => {
    const { as, rs } = await stack(() => ['notes:admin']);
    const { fetch } = clientFor(rs, { revision: '2025-06-18' });

    const response = await fetch(rs.url, rpc('tools/call', { name: 'notes_delete' }));

    expect(response.status).toBe(403);
    expect(response.headers.get('www-authenticate')).toContain('insufficient_scope');
    expect(as.authorizationRequests).toHaveLength(1);
  });

  it('gives up with step_up_exhausted after 3 authorizations for one request when the scope never suffices', async () => {
    const { as, rs } = await stack(() => ['notes:admin']);
    const { fetch } = clientFor(rs);

    await expect(fetch(rs.url, rpc('tools/call', { name: 'notes_delete' }))).rejects.toMatchObject({
      code: 'step_up_exhausted',
      details: { scope: ['notes:admin'] },
    });
    expect(as.authorizationRequests).toHaveLength(3);
    expect(rs.requests.map((request) => request.status)).toEqual([401, 403, 403, 403]);
  });

  it('remembers an exhausted operation and does not loop through the authorization server again for it', async () => {
    const { as, rs } = await stack(() => ['notes:admin']);
    const { fetch } = clientFor(rs);
    await fetch(rs.url, rpc('tools/call', { name: 'notes_delete' })).catch(() => undefined);
    await fetch(rs.url, rpc('tools/call', { name: 'notes_delete' })).catch(() => undefined);

    await expect(fetch(rs.url, rpc('tools/call', { name: 'notes_delete' }))).rejects.toMatchObject({
      code: 'step_up_exhausted',
    });
    // Three for the first request, one more for the second, none for the third.
    expect(as.authorizationRequests).toHaveLength(4);
  });

  it('honours a lower maxAuthorizationAttempts', async () => {
    const { as, rs } = await stack(() => ['notes:admin']);
    const { fetch } = clientFor(rs, { maxAuthorizationAttempts: 1 });

    await expect(fetch(rs.url, rpc('tools/list'))).rejects.toMatchObject({ code: 'step_up_exhausted' });
    expect(as.authorizationRequests).toHaveLength(1);
  });

  it('tracks operations apart: an exhausted tool does not block another one', async () => {
    const { rs } = await stack((body) =>
      (body['params'] as { name?: string } | undefined)?.name === 'notes_delete'
        ? ['notes:admin']
        : ['notes:read'],
    );
    const { fetch } = clientFor(rs);
    await expect(fetch(rs.url, rpc('tools/call', { name: 'notes_delete' }))).rejects.toMatchObject({
      code: 'step_up_exhausted',
    });

    expect((await fetch(rs.url, rpc('tools/call', { name: 'notes_list' }))).status).toBe(200);
  });
});
