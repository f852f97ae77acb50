import { afterEach, describe, expect, it } from '@jest/globals';
import { REVISIONS } from '@portcullis/revisions';
import {
  FakeAuthorizationServer,
  type FakeAuthorizationServerOptions,
} from '../support/authorization-server.fixture.js';
import { clientFor } from '../support/client.js';
import { FakeResourceServer, rpc } from '../support/resource-server.fixture.js';

describe('authorization server metadata discovery (RFC 8414, OpenID Connect Discovery)', () => {
  const servers: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });

  async function stack(options: FakeAuthorizationServerOptions = {}) {
    const as = await FakeAuthorizationServer.start(options);
    const rs = await FakeResourceServer.start({ authorizationServers: () => [as] });
    servers.push(as, rs);
    return { as, rs };
  }

  it('refuses metadata whose issuer differs from the issuer it was fetched for, before any registration or authorization', async () => {
    const { as, rs } = await stack({
      metadata: (document) => ({ ...document, issuer: 'https://attacker.example' }),
    });
    const { fetch } = clientFor(rs);

    await expect(fetch(rs.url, rpc('tools/list'))).rejects.toMatchObject({
      code: 'issuer_mismatch',
      details: { expected: as.issuer, published: 'https://attacker.example' },
    });
    expect(as.registrations).toEqual([]);
    expect(as.authorizationRequests).toEqual([]);
  });

  it('connects through resource metadata that names a root issuer with a trailing slash (RFC 3986 6.2.3), recording the published issuer', async () => {
    const as = await FakeAuthorizationServer.start();
    const rs = await FakeResourceServer.start({
      authorizationServers: () => [as],
      metadata: (document) => ({ ...document, authorization_servers: [`${as.issuer}/`] }),
    });
    servers.push(as, rs);
    const { fetch } = clientFor(rs);

    expect((await fetch(rs.url, rpc('tools/list'))).status).toBe(200);
    expect(as.metadataRequests).toEqual(['/.well-known/oauth-authorization-server']);
    expect((await fetch.tokens())?.issuer).toBe(as.issuer);
  });

  it('compares iss exactly with the published issuer after accepting the trailing-slash equivalence', async () => {
    // The metadata publishes `X/` while the authorization response says `X`: the recorded issuer is `X/`.
    const { as, rs } = await stack({
      metadata: (document) => ({ ...document, issuer: `${document['issuer']}/` }),
    });
    const { fetch } = clientFor(rs);

    await expect(fetch(rs.url, rpc('tools/list'))).rejects.toMatchObject({ code: 'iss_mismatch' });
    expect(as.tokenRequests).toEqual([]);
  });

  it('refuses a trailing-slash variant of an issuer with a path (only a root issuer has the equivalence)', async () => {
    const { as, rs } = await stack({
      issuerPath: '/tenant1',
      metadata: (document) => ({ ...document, issuer: `${document['issuer']}/` }),
    });
    const { fetch } = clientFor(rs);

    await expect(fetch(rs.url, rpc('tools/list'))).rejects.toMatchObject({ code: 'issuer_mismatch' });
    expect(as.authorizationRequests).toEqual([]);
  });

  // RFC 8414 3.3 is RFC 8414's own rule: every revision discovers the server through RFC 8414, so every one keeps it.
  describe.each(REVISIONS)('under %s (RFC 8414 Section 3.3 in every revision)', (revision) => {
    it('refuses metadata naming another issuer, before any registration or authorization request, storing nothing', async () => {
      const { as, rs } = await stack({
        metadata: (document) => ({ ...document, issuer: 'https://attacker.example' }),
      });
      const { fetch, store } = clientFor(rs, { revision });

      await expect(fetch(rs.url, rpc('tools/list'))).rejects.toMatchObject({
        code: 'issuer_mismatch',
        details: { expected: as.issuer, published: 'https://attacker.example' },
      });
      expect(as.registrations).toEqual([]);
      expect(as.authorizationRequests).toEqual([]);
      expect(as.tokenRequests).toEqual([]);
      expect(await store.listTokens()).toEqual([]);
      expect(await store.getClient(as.issuer)).toBeUndefined();
    });

    it('records the published issuer of a root issuer with a trailing slash, so iss is compared with it', async () => {
      // The metadata publishes `X/` for `X` (RFC 3986 6.2.3) while the response says `X`: `X/` is what counts.
      const { as, rs } = await stack({
        metadata: (document) => ({ ...document, issuer: `${document['issuer']}/` }),
      });
      const { fetch, store } = clientFor(rs, { revision });

      await expect(fetch(rs.url, rpc('tools/list'))).rejects.toMatchObject({ code: 'iss_mismatch' });
      expect(as.tokenRequests).toEqual([]);
      expect(await store.listTokens()).toEqual([]);
    });

    it('uses metadata whose issuer is the one its URL was built from', async () => {
      const { as, rs } = await stack();
      const { fetch } = clientFor(rs, { revision });

      expect((await fetch(rs.url, rpc('tools/list'))).status).toBe(200);
      expect((await fetch.tokens())?.issuer).toBe(as.issuer);
    });
  });

  it.each([
    [
      'without code_challenge_methods_supported',
      (document: Record<string, unknown>) => ({ ...document, code_challenge_methods_supported: undefined }),
    ],
    [
      'with only plain PKCE',
      (document: Record<string, unknown>) => ({ ...document, code_challenge_methods_supported: ['plain'] }),
    ],
  ])('refuses to proceed with a server %s (pkce_unsupported)', async (_, metadata) => {
    const { as, rs } = await stack({ metadata });
    const { fetch } = clientFor(rs);

    await expect(fetch(rs.url, rpc('tools/list'))).rejects.toMatchObject({ code: 'pkce_unsupported' });
    expect(as.registrations).toEqual([]);
    expect(as.authorizationRequests).toEqual([]);
  });

  it.each([
    ['authorization_endpoint', 'javascript:alert(document.cookie)'],
    ['authorization_endpoint', ' \tJava\nScript:alert(1)'],
    ['token_endpoint', 'data:text/html,<script>alert(1)</script>'],
    ['registration_endpoint', 'http://register.example/register'],
  ])(
    'refuses metadata whose %s is %j (unsafe_endpoint), before any authorization request',
    async (field, value) => {
      const { as, rs } = await stack({ metadata: (document) => ({ ...document, [field]: value }) });
      const { fetch } = clientFor(rs);

      await expect(fetch(rs.url, rpc('tools/list'))).rejects.toMatchObject({
        code: 'unsafe_endpoint',
        details: { field },
      });
      expect(as.registrations).toEqual([]);
      expect(as.authorizationRequests).toEqual([]);
    },
  );

  it.each([
    ['oauth' as const, ['/.well-known/oauth-authorization-server/tenant1']],
    [
      'openid-inserted' as const,
      ['/.well-known/oauth-authorization-server/tenant1', '/.well-known/openid-configuration/tenant1'],
    ],
    [
      'openid-appended' as const,
      [
        '/.well-known/oauth-authorization-server/tenant1',
        '/.well-known/openid-configuration/tenant1',
        '/tenant1/.well-known/openid-configuration',
      ],
    ],
  ])(
    'finds metadata served at the %s location of an issuer with a path, in the MCP 2026-07-28 discovery order',
    async (metadataAt, tried) => {
      const { as, rs } = await stack({ issuerPath: '/tenant1', metadataAt });
      const { fetch } = clientFor(rs);

      expect((await fetch(rs.url, rpc('tools/list'))).status).toBe(200);
      expect(as.metadataRequests).toEqual(tried);
    },
  );

  it('uses only the RFC 8414 URL under 2025-06-18', async () => {
    const { as, rs } = await stack({ metadataAt: 'openid-inserted' });
    const { fetch } = clientFor(rs, { revision: '2025-06-18' });

    await expect(fetch(rs.url, rpc('tools/list'))).rejects.toMatchObject({ code: 'metadata_unavailable' });
    expect(as.metadataRequests).toEqual(['/.well-known/oauth-authorization-server']);
    expect(as.authorizationRequests).toEqual([]);
  });
});
