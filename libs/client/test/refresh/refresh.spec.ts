import { afterEach, describe, expect, it } from '@jest/globals';
import { MemoryTokenStore } from '../../src/store/memory-token-store.js';
import type { StoredTokenSet } from '../../src/store/token-store.js';
import { FakeAuthorizationServer } from '../support/authorization-server.fixture.js';
import { clientFor } from '../support/client.js';
import { FakeResourceServer, rpc } from '../support/resource-server.fixture.js';

describe('refreshing tokens (RFC 6749 Section 6, MCP 2026-07-28 "Refresh Tokens")', () => {
  const servers: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });

  async function stack() {
    const as = await FakeAuthorizationServer.start({
      accessTokenTtlSeconds: 300,
      scopesSupported: ['notes:read', 'offline_access'],
    });
    const rs = await FakeResourceServer.start({
      authorizationServers: () => [as],
      challengeScope: ['notes:read'],
    });
    servers.push(as, rs);
    return { as, rs };
  }

  /** A clock the test moves; starts at the real time so the server's tokens are live. */
  function clock() {
    let offset = 0;
    return { now: () => Date.now() + offset, advance: (ms: number) => (offset += ms) };
  }

  it('refreshes shortly before expiry, with resource, and uses the rotated refresh token next time', async () => {
    const { as, rs } = await stack();
    const time = clock();
    const { fetch, store } = clientFor(rs, { now: time.now, refreshSkewSeconds: 60 });
    await fetch(rs.url, rpc('tools/list'));
    const [first] = await store.findTokens(rs.url);

    time.advance(250_000);
    expect((await fetch(rs.url, rpc('tools/list'))).status).toBe(200);
    const [second] = await store.findTokens(rs.url);
    time.advance(250_000);
    expect((await fetch(rs.url, rpc('tools/list'))).status).toBe(200);

    const refreshes = as.grants('refresh_token').map((request) => request.params);
    expect(refreshes.map((params) => params.get('refresh_token'))).toEqual([
      first!.refreshToken,
      second!.refreshToken,
    ]);
    expect(refreshes.map((params) => params.get('resource'))).toEqual([rs.url, rs.url]);
    expect(second!.refreshToken).not.toBe(first!.refreshToken);
    expect(as.authorizationRequests).toHaveLength(1);
    expect(rs.requests.map((request) => request.status)).toEqual([401, 200, 200, 200]);
  });

  it('registers again when the server no longer knows the client (invalid_client on refresh), dropping the old registration and its tokens', async () => {
    const { as, rs } = await stack();
    const time = clock();
    const { fetch, store, progress } = clientFor(rs, { now: time.now, refreshSkewSeconds: 60 });
    await fetch(rs.url, rpc('tools/list'));
    const [first] = await store.findTokens(rs.url);
    as.forgetClient(first!.clientId);

    time.advance(400_000);
    expect((await fetch(rs.url, rpc('tools/list'))).status).toBe(200);

    expect(as.registrations).toHaveLength(2);
    expect(as.authorizationRequests).toHaveLength(2);
    const refused = as.tokenRequests.filter((request) => request.status === 401);
    expect(refused.map((request) => request.params.get('grant_type'))).toEqual(['refresh_token']);
    const [now] = await store.findTokens(rs.url);
    expect(now!.clientId).not.toBe(first!.clientId);
    expect((await store.getClient(as.issuer))?.clientId).toBe(now!.clientId);
    expect(await store.listTokens()).toHaveLength(1);
    expect(progress.some((event) => event.message.includes('invalid_client'))).toBe(true);
  });

  it('persists the rotated refresh token before the new access token is used', async () => {
    const { as, rs } = await stack();
    const time = clock();
    const saves: { usedBeforeSaved: boolean; refreshToken: string | undefined }[] = [];
    const store = new (class extends MemoryTokenStore {
      override async saveTokens(tokens: StoredTokenSet): Promise<void> {
        saves.push({
          usedBeforeSaved: rs.requests.some(
            (request) => request.authorization === `Bearer ${tokens.accessToken}`,
          ),
          refreshToken: tokens.refreshToken,
        });
        await super.saveTokens(tokens);
      }
    })();
    const { fetch } = clientFor(rs, { now: time.now, store });
    await fetch(rs.url, rpc('tools/list'));

    time.advance(280_000);
    await fetch(rs.url, rpc('tools/list'));

    expect(as.grants('refresh_token')).toHaveLength(1);
    expect(saves).toHaveLength(2);
    expect(saves.every((save) => !save.usedBeforeSaved)).toBe(true);
    expect(saves[1]!.refreshToken).not.toBe(saves[0]!.refreshToken);
  });

  it('answers a 401 invalid_token on a stored token with a refresh, not a new authorization', async () => {
    const { as, rs } = await stack();
    const { fetch } = clientFor(rs);
    await fetch(rs.url, rpc('tools/list'));
    as.expireAccessTokens();

    expect((await fetch(rs.url, rpc('tools/list'))).status).toBe(200);
    expect(as.grants('refresh_token')).toHaveLength(1);
    expect(as.authorizationRequests).toHaveLength(1);
  });

  it('starts a new authorization when the refresh token is rejected with invalid_grant', async () => {
    const { as, rs } = await stack();
    const { fetch, store } = clientFor(rs);
    await fetch(rs.url, rpc('tools/list'));
    const [before] = await store.findTokens(rs.url);
    as.expireAccessTokens();
    as.revokeRefreshTokens();

    expect((await fetch(rs.url, rpc('tools/list'))).status).toBe(200);
    expect(as.grants('refresh_token')).toHaveLength(1);
    expect(as.authorizationRequests).toHaveLength(2);
    const [after] = await store.findTokens(rs.url);
    expect(after!.refreshToken).not.toBe(before!.refreshToken);
  });

  it('makes one refresh for 50 concurrent requests on an expired token', async () => {
    const { as, rs } = await stack();
    const time = clock();
    const { fetch } = clientFor(rs, { now: time.now });
    await fetch(rs.url, rpc('tools/list'));
    time.advance(301_000);

    const responses = await Promise.all(Array.from({ length: 50 }, () => fetch(rs.url, rpc('tools/list'))));

    expect(responses.map((response) => response.status)).toEqual(Array(50).fill(200));
    expect(as.grants('refresh_token')).toHaveLength(1);
    expect(as.authorizationRequests).toHaveLength(1);
  });

  it('makes one refresh for 50 concurrent requests that all get 401 for the same token', async () => {
    const { as, rs } = await stack();
    const { fetch } = clientFor(rs);
    await fetch(rs.url, rpc('tools/list'));
    as.expireAccessTokens();

    const responses = await Promise.all(Array.from({ length: 50 }, () => fetch(rs.url, rpc('tools/list'))));

    expect(responses.map((response) => response.status)).toEqual(Array(50).fill(200));
    expect(as.grants('refresh_token')).toHaveLength(1);
    expect(as.authorizationRequests).toHaveLength(1);
  });

  it('does not ask for offline_access when the client wants no refresh tokens', async () => {
    const { as, rs } = await stack();
    const { fetch } = clientFor(rs, { wantsRefreshTokens: false });

    await fetch(rs.url, rpc('tools/list'));

    expect(as.authorizationRequests[0]!.get('scope')).toBe('notes:read');
    expect(as.registrations[0]!['grant_types']).toEqual(['authorization_code']);
  });
});
