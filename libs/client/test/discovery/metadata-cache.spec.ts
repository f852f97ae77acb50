// Authorization server metadata kept in the token store for its freshness lifetime (RFC 8414 Section 3, RFC 9111
// Section 4.2): a second client on the same store (a second run of the command line) makes no discovery request
// while the document is fresh, fetches it again once stale, keeps nothing the server said not to store, and checks
// a kept document again before it uses it.
import { afterEach, describe, expect, it } from '@jest/globals';
import { MemoryTokenStore } from '../../src/store/memory-token-store.js';
import { FakeAuthorizationServer } from '../support/authorization-server.fixture.js';
import { clientFor } from '../support/client.js';
import { FakeResourceServer, rpc } from '../support/resource-server.fixture.js';

describe('authorization server metadata kept across clients of one store', () => {
  const servers: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });

  async function stack(metadataCacheControl?: string) {
    const as = await FakeAuthorizationServer.start({
      accessTokenTtlSeconds: 300,
      scopesSupported: ['notes:read', 'offline_access'],
      ...(metadataCacheControl === undefined ? {} : { metadataCacheControl }),
    });
    const rs = await FakeResourceServer.start({
      authorizationServers: () => [as],
      challengeScope: ['notes:read'],
    });
    servers.push(as, rs);
    return { as, rs };
  }

  /** A first client that authorizes, then, `laterMs` on (past the access token's expiry), a second on its store. */
  async function secondRun(
    rs: FakeResourceServer,
    laterMs: number,
    prepare?: (store: MemoryTokenStore) => Promise<void>,
  ) {
    const store = new MemoryTokenStore();
    const first = clientFor(rs, { store });
    expect((await first.fetch(rs.url, rpc('tools/list'))).status).toBe(200);
    await prepare?.(store);
    const second = clientFor(rs, { store, now: () => Date.now() + laterMs });
    expect((await second.fetch(rs.url, rpc('tools/list'))).status).toBe(200);
    return store;
  }

  it('refreshes on the second run without fetching the metadata again while it is fresh', async () => {
    const { as, rs } = await stack('public, max-age=3600');
    await secondRun(rs, 400_000);

    expect(as.metadataRequests).toEqual(['/.well-known/oauth-authorization-server']);
    expect(as.grants('refresh_token')).toHaveLength(1);
    expect(as.authorizationRequests).toHaveLength(1);
  });

  it('keeps a document without Cache-Control for an hour, then fetches it again', async () => {
    const { as, rs } = await stack('');
    await secondRun(rs, 400_000);
    expect(as.metadataRequests).toHaveLength(1);

    const { as: as2, rs: rs2 } = await stack('');
    await secondRun(rs2, 3_700_000);
    expect(as2.metadataRequests).toHaveLength(2);
  });

  it('fetches it again once its max-age has passed', async () => {
    const { as, rs } = await stack('max-age=60');
    await secondRun(rs, 400_000);

    expect(as.metadataRequests).toHaveLength(2);
    expect(as.grants('refresh_token')).toHaveLength(1);
  });

  it('keeps nothing in the store when the server says no-store', async () => {
    const { as, rs } = await stack('no-store');
    const store = await secondRun(rs, 400_000);

    expect(as.metadataRequests).toHaveLength(2);
    expect(await store.getServerMetadata(as.issuer)).toBeUndefined();
  });

  it('checks a kept document again: one whose issuer was changed in the store is not used, and is fetched anew', async () => {
    const { as, rs } = await stack('max-age=3600');
    const store = await secondRun(rs, 400_000, async (kept) => {
      const entry = await kept.getServerMetadata(as.issuer);
      expect(entry).toBeDefined();
      await kept.saveServerMetadata({
        ...entry!,
        document: {
          ...entry!.document,
          issuer: 'https://attacker.example',
          token_endpoint: 'https://attacker.example/token',
        },
      });
    });

    expect(as.metadataRequests).toHaveLength(2);
    expect(as.grants('refresh_token')).toHaveLength(1);
    expect((await store.getServerMetadata(as.issuer))?.document['issuer']).toBe(as.issuer);
  });
});
