import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { freePort, startEntraFake, type EntraFake } from '@portcullis/testing';
import { expectRefusedWithNothingStored, signInWithMcpClient } from '../support/provider-flow.js';
import { reserveResource, startProtectedServer, type ProtectedServer } from '../support/protected-server.js';
import { proxyCallback, startProxy, type ProxyFixture } from '../support/proxy.fixture.js';

const CONTOSO = '72f988bf-86f1-41af-91ab-2d7cd011db47';
const FABRIKAM = 'f8cdef31-a31e-4b4a-93e4-5f571e91255a';
const ADA_OID = '6f1c2c44-0c5d-4b8e-9b3a-1f3c0f9d2a10';

describe('the proxy in front of Microsoft Entra ID (UPSTREAM_PROVIDER=entra, tenant organizations)', () => {
  let entra: EntraFake;
  let proxy: ProxyFixture;
  let server: ProtectedServer;

  beforeAll(async () => {
    const port = await freePort();
    entra = await startEntraFake({
      users: [
        {
          login: 'ada@contoso.example',
          oid: ADA_OID,
          tid: CONTOSO,
          name: 'Ada',
          email: 'ada@contoso.example',
        },
        // Another organization's account, whose address names the allowed organization's domain.
        {
          login: 'eve@fabrikam.example',
          oid: '0e0e0e0e-0000-4000-8000-00000000000e',
          tid: FABRIKAM,
          email: 'eve@contoso.example',
        },
      ],
    });
    const app = entra.registerClient({ redirectUris: [proxyCallback(port)] });
    const { recorder, resource } = await reserveResource();
    proxy = await startProxy({
      port,
      upstream: { issuer: '', clientId: app.clientId, clientSecret: app.clientSecret },
      resource,
      env: {
        UPSTREAM_PROVIDER: 'entra',
        UPSTREAM_BASE_URL: entra.baseUrl,
        UPSTREAM_TENANT: 'organizations',
        // The preset's default scopes: openid profile email offline_access.
        UPSTREAM_SCOPES: '',
        UPSTREAM_ALLOWED: JSON.stringify({ entra_tenants: [CONTOSO] }),
      },
    });
    server = await startProtectedServer({ recorder, resource, authorizationServer: proxy.issuer });
  });
  afterAll(async () => {
    await server?.close();
    await proxy?.close();
    await entra?.close();
  });

  it("signs the MCP client in with the templated issuer filled with the person's tenant, keyed by oid", async () => {
    const { pages, subject } = await signInWithMcpClient(server, proxy, 'ada@contoso.example');
    expect(pages).toEqual([['proxy-consent', 'upstream-login', 'upstream-consent']]);

    // Discovery named the {tenantid} template; the person is oid within their tenant's issuer, not the pairwise sub.
    const identity = await proxy.prisma.upstreamIdentity.findUniqueOrThrow({
      where: {
        provider_issuer_subject: {
          provider: 'entra',
          issuer: `${entra.baseUrl}/${CONTOSO}/v2.0`,
          subject: ADA_OID,
        },
      },
    });
    expect(identity.userId).toBe(subject);
    // Entra does not verify `email`: kept, never as verified.
    const user = await proxy.prisma.user.findUniqueOrThrow({ where: { id: identity.userId } });
    expect(user).toMatchObject({ name: 'Ada', email: 'ada@contoso.example', emailVerified: false });

    // No `resource` upstream (the fake would refuse it), offline_access asked, and the refresh token kept.
    const upstreamRequests = entra.requests.filter((each) => each.path.startsWith('/organizations/oauth2/'));
    expect(upstreamRequests.map((each) => new URL(each.path, entra.baseUrl).pathname)).toEqual([
      '/organizations/oauth2/v2.0/authorize',
      '/organizations/oauth2/v2.0/token',
    ]);
    for (const request of upstreamRequests) {
      expect(new URL(request.path, entra.baseUrl).searchParams.has('resource')).toBe(false);
      expect(new URLSearchParams(request.body).has('resource')).toBe(false);
    }
    const authorize = new URL(upstreamRequests[0]!.path, entra.baseUrl).searchParams;
    expect(authorize.get('scope')).toBe('openid profile email offline_access');
    expect(authorize.get('code_challenge_method')).toBe('S256');
    const stored = await proxy.prisma.upstreamToken.findUniqueOrThrow({
      where: { userId_connection: { userId: identity.userId, connection: 'upstream' } },
    });
    expect(stored.issuer).toBe(`${entra.baseUrl}/${CONTOSO}/v2.0`);
    expect(stored.refreshToken).toBeTruthy();

    const atServer = server.recorder.exchanges
      .map((each) => JSON.stringify(each.headers) + each.body)
      .join('\n');
    for (const value of entra.issued()) expect(atServer.includes(value)).toBe(false);
  });

  it('refuses a person of a tenant not allowed, whatever their address, storing nothing', async () => {
    await expectRefusedWithNothingStored(proxy, server.resource, 'eve@fabrikam.example');
  });
});
