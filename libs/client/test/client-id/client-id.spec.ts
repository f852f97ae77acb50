import { afterEach, describe, expect, it } from '@jest/globals';
import { MemoryTokenStore } from '../../src/store/memory-token-store.js';
import {
  FakeAuthorizationServer,
  type FakeAuthorizationServerOptions,
} from '../support/authorization-server.fixture.js';
import { clientFor } from '../support/client.js';
import { FakeResourceServer, rpc } from '../support/resource-server.fixture.js';

const CIMD_URL = 'https://client.example/oauth/metadata.json';

function basicUser(authorization: string | undefined): string | undefined {
  return authorization === undefined
    ? undefined
    : Buffer.from(authorization.slice(6), 'base64').toString().split(':')[0];
}

describe('obtaining a client ID, in the priority of the revision', () => {
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

  it('registers dynamically with application_type native and the refresh_token grant under 2026-07-28', async () => {
    const { as, rs } = await stack();
    const { fetch } = clientFor(rs, { clientRegistration: { clientName: 'Test client' } });

    expect((await fetch(rs.url, rpc('tools/list'))).status).toBe(200);
    expect(as.registrations).toEqual([
      {
        client_name: 'Test client',
        redirect_uris: ['http://127.0.0.1/callback'],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
        application_type: 'native',
      },
    ]);
    expect(as.authorizationRequests[0]!.get('client_id')).toMatch(/^client-1-/);
  });

  it('sends no application_type under 2025-06-18', async () => {
    const { as, rs } = await stack();
    const { fetch } = clientFor(rs, { revision: '2025-06-18' });

    await fetch(rs.url, rpc('tools/list'));
    expect(as.registrations[0]).not.toHaveProperty('application_type');
  });

  it('stores the registration per issuer and re-uses it, so a second client with the same store does not register', async () => {
    const { as, rs } = await stack();
    const store = new MemoryTokenStore();
    await clientFor(rs, { store }).fetch(rs.url, rpc('tools/list'));
    await store.deleteTokens({});

    expect((await clientFor(rs, { store }).fetch(rs.url, rpc('tools/list'))).status).toBe(200);
    expect(as.registrations).toHaveLength(1);
    expect(as.authorizationRequests.map((request) => request.get('client_id'))).toEqual([
      (await store.getClient(as.issuer))!.clientId,
      (await store.getClient(as.issuer))!.clientId,
    ]);
  });

  it('authenticates a confidential registered client with client_secret_basic', async () => {
    const { as, rs } = await stack({ registerConfidential: true });
    const { fetch } = clientFor(rs);

    expect((await fetch(rs.url, rpc('tools/list'))).status).toBe(200);
    const token = as.grants('authorization_code')[0]!;
    expect(basicUser(token.authorization)).toBe(as.authorizationRequests[0]!.get('client_id'));
    expect(token.params.has('client_secret')).toBe(false);
  });

  it('uses the client ID metadata document URL when the server supports it, without registering', async () => {
    const { as, rs } = await stack({
      metadata: (document) => ({ ...document, client_id_metadata_document_supported: true }),
    });
    const { fetch } = clientFor(rs, { clientMetadataUrl: CIMD_URL });

    expect((await fetch(rs.url, rpc('tools/list'))).status).toBe(200);
    expect(as.registrations).toEqual([]);
    expect(as.authorizationRequests[0]!.get('client_id')).toBe(CIMD_URL);
    expect(as.grants('authorization_code')[0]!.params.get('client_id')).toBe(CIMD_URL);
  });

  it.each([
    ['the server does not advertise support', '2026-07-28', false],
    ['the revision is 2025-06-18', '2025-06-18', true],
  ])('registers instead of using the metadata document when %s', async (_, revision, supported) => {
    const { as, rs } = await stack({
      metadata: (document) => ({ ...document, client_id_metadata_document_supported: supported }),
    });
    const { fetch } = clientFor(rs, { clientMetadataUrl: CIMD_URL, revision });

    await fetch(rs.url, rpc('tools/list'));
    expect(as.registrations).toHaveLength(1);
    expect(as.authorizationRequests[0]!.get('client_id')).not.toBe(CIMD_URL);
  });

  it('prefers pre-registered credentials bound to the issuer over everything else', async () => {
    const { as, rs } = await stack({
      metadata: (document) => ({ ...document, client_id_metadata_document_supported: true }),
    });
    const { fetch } = clientFor(rs, {
      clientMetadataUrl: CIMD_URL,
      clientCredentials: { issuer: as.issuer, clientId: 'pre-registered client', clientSecret: 's3cret' },
    });

    expect((await fetch(rs.url, rpc('tools/list'))).status).toBe(200);

    expect(as.registrations).toEqual([]);
    expect(as.authorizationRequests[0]!.get('client_id')).toBe('pre-registered client');
    const token = as.grants('authorization_code')[0]!;
    expect(Buffer.from(token.authorization!.slice(6), 'base64').toString()).toBe(
      'pre-registered+client:s3cret',
    );
  });

  it('never sends pre-registered credentials bound to another issuer', async () => {
    const { as, rs } = await stack();
    const { fetch } = clientFor(rs, {
      clientCredentials: {
        issuer: 'https://other-as.example',
        clientId: 'other-client',
        clientSecret: 'other-secret',
      },
    });

    expect((await fetch(rs.url, rpc('tools/list'))).status).toBe(200);
    expect(as.registrations).toHaveLength(1);
    expect(as.authorizationRequests[0]!.get('client_id')).not.toBe('other-client');
    expect(as.tokenRequests.every((request) => request.authorization === undefined)).toBe(true);
  });

  it('asks for a client ID when the server has no registration endpoint and nothing else applies (no_client_id)', async () => {
    const { as, rs } = await stack({ registration: false });
    const { fetch } = clientFor(rs);

    await expect(fetch(rs.url, rpc('tools/list'))).rejects.toMatchObject({
      code: 'no_client_id',
      message: expect.stringContaining('--client-id'),
    });
    expect(as.authorizationRequests).toEqual([]);
  });
});

describe('a resource that moves to another authorization server (MCP "Authorization Server Binding")', () => {
  const servers: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });

  it.each([
    ['registered dynamically', undefined],
    ['pre-registered without an issuer (bound on first use)', { clientId: 'first-use-client' }],
  ])(
    're-registers at the new server and never presents credentials %s at the old one',
    async (_, clientCredentials) => {
      const first = await FakeAuthorizationServer.start();
      const second = await FakeAuthorizationServer.start();
      let current = first;
      const rs = await FakeResourceServer.start({ authorizationServers: () => [current] });
      servers.push(first, second, rs);
      const { fetch, store } = clientFor(rs, clientCredentials === undefined ? {} : { clientCredentials });

      expect((await fetch(rs.url, rpc('tools/list'))).status).toBe(200);
      const firstClientId = first.authorizationRequests[0]!.get('client_id');
      current = second;
      expect((await fetch(rs.url, rpc('tools/list'))).status).toBe(200);

      expect(second.registrations).toHaveLength(1);
      const presented = [
        ...second.authorizationRequests.map((request) => request.get('client_id')),
        ...second.tokenRequests.map(
          (request) => request.params.get('client_id') ?? basicUser(request.authorization),
        ),
      ];
      expect(presented).not.toContain(firstClientId);
      expect(presented.every((clientId) => clientId === presented[0])).toBe(true);
      expect((await store.findTokens(rs.url)).map((tokens) => tokens.issuer)).toEqual([second.issuer]);
    },
  );
});
