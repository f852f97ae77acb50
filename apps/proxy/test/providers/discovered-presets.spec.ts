import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  freePort,
  HeadlessUserAgent,
  startAuth0Fake,
  startKeycloakFake,
  startOktaFake,
  type OidcFake,
  type OidcFakeClient,
} from '@portcullis/testing';
import { walk } from '../support/person.js';
import { expectRefusedWithNothingStored, signInWithMcpClient } from '../support/provider-flow.js';
import { reserveResource, startProtectedServer, type ProtectedServer } from '../support/protected-server.js';
import {
  authorizationRequest,
  proxyCallback,
  startProxy,
  type ProxyFixture,
} from '../support/proxy.fixture.js';

/** One preset whose issuer the proxy derives from its settings, and a fake of that provider. */
interface Preset {
  readonly name: 'okta' | 'auth0' | 'keycloak';
  readonly start: () => Promise<OidcFake>;
  readonly env: (fake: OidcFake) => Record<string, string>;
  /** The issuer the identities are keyed within. */
  readonly issuer: (fake: OidcFake) => string;
  /** The path of the authorization endpoint. */
  readonly authorizePath: string;
  readonly scope: string;
  readonly allowed: { login: string; subject: string };
  readonly refused: string;
}

const PRESETS: readonly Preset[] = [
  {
    name: 'okta',
    start: () =>
      startOktaFake({
        users: [
          { login: 'ada@acme.example', sub: '00u1ada0000000000001', email: 'ada@acme.example', name: 'Ada' },
          { login: 'eve@elsewhere.example', sub: '00u1eve0000000000002', email: 'eve@elsewhere.example' },
        ],
      }),
    env: (fake) => ({
      UPSTREAM_PROVIDER: 'okta',
      UPSTREAM_BASE_URL: fake.baseUrl,
      UPSTREAM_ALLOWED: JSON.stringify({ email_domains: ['acme.example'] }),
    }),
    issuer: (fake) => `${fake.baseUrl}/oauth2/default`,
    authorizePath: '/oauth2/default/v1/authorize',
    scope: 'openid profile email offline_access',
    allowed: { login: 'ada@acme.example', subject: '00u1ada0000000000001' },
    refused: 'eve@elsewhere.example',
  },
  {
    name: 'auth0',
    start: () =>
      startAuth0Fake({
        apis: ['https://api.acme.example'],
        users: [
          { login: 'ada@acme.example', sub: 'auth0|64f1c2d3e4f5a6b7c8d9e0f1', email: 'ada@acme.example' },
          {
            login: 'eve@acme.example',
            sub: 'google-oauth2|110169484474386270000',
            email: 'eve@acme.example',
          },
        ],
      }),
    env: (fake) => ({
      UPSTREAM_PROVIDER: 'auth0',
      UPSTREAM_BASE_URL: fake.baseUrl,
      UPSTREAM_AUDIENCE: 'https://api.acme.example',
      UPSTREAM_ALLOWED: JSON.stringify({ subjects: ['auth0|64f1c2d3e4f5a6b7c8d9e0f1'] }),
    }),
    // Auth0's issuer ends with a slash, and the identities are keyed within it as it is.
    issuer: (fake) => `${fake.baseUrl}/`,
    authorizePath: '/authorize',
    scope: 'openid profile email offline_access',
    allowed: { login: 'ada@acme.example', subject: 'auth0|64f1c2d3e4f5a6b7c8d9e0f1' },
    refused: 'eve@acme.example',
  },
  {
    name: 'keycloak',
    start: () =>
      startKeycloakFake({
        users: [
          {
            login: 'ada',
            realm: 'staff',
            sub: '2f0c8d4e-2a6b-4a59-9d0e-6f1f3c7a1b01',
            email: 'ada@acme.example',
            name: 'Ada',
          },
          {
            login: 'eve',
            realm: 'staff',
            sub: '2f0c8d4e-2a6b-4a59-9d0e-6f1f3c7a1b02',
            email: 'eve@elsewhere.example',
          },
        ],
      }),
    env: (fake) => ({
      UPSTREAM_PROVIDER: 'keycloak',
      UPSTREAM_BASE_URL: fake.baseUrl,
      UPSTREAM_REALM: 'staff',
      UPSTREAM_ALLOWED: JSON.stringify({ email_domains: ['acme.example'] }),
    }),
    issuer: (fake) => `${fake.baseUrl}/realms/staff`,
    authorizePath: '/realms/staff/protocol/openid-connect/auth',
    scope: 'openid profile email',
    allowed: { login: 'ada', subject: '2f0c8d4e-2a6b-4a59-9d0e-6f1f3c7a1b01' },
    refused: 'eve',
  },
];

describe.each(PRESETS)('the proxy in front of $name (UPSTREAM_PROVIDER=$name)', (preset) => {
  let fake: OidcFake;
  let app: OidcFakeClient;
  let proxy: ProxyFixture;
  let server: ProtectedServer;

  beforeAll(async () => {
    const port = await freePort();
    fake = await preset.start();
    app = fake.registerClient({ redirectUris: [proxyCallback(port)] });
    const { recorder, resource } = await reserveResource();
    proxy = await startProxy({
      port,
      upstream: { issuer: '', clientId: app.clientId, clientSecret: app.clientSecret },
      resource,
      // The preset's default scopes.
      env: { ...preset.env(fake), UPSTREAM_SCOPES: '' },
    });
    server = await startProtectedServer({ recorder, resource, authorizationServer: proxy.issuer });
  });
  afterAll(async () => {
    await server?.close();
    await proxy?.close();
    await fake?.close();
  });

  it('signs the MCP client in, keying the person by the issuer and the stable subject', async () => {
    const { pages, subject } = await signInWithMcpClient(server, proxy, preset.allowed.login);
    expect(pages).toEqual([['proxy-consent', 'upstream-login', 'upstream-consent']]);

    const authorize = fake.requests.find((each) => each.path.startsWith(`${preset.authorizePath}?`));
    const params = new URL(authorize!.path, fake.baseUrl).searchParams;
    expect(params.get('scope')).toBe(preset.scope);
    expect(params.get('code_challenge_method')).toBe('S256');
    expect(params.get('nonce')).toBeTruthy();
    expect(params.get('audience')).toBe(preset.name === 'auth0' ? 'https://api.acme.example' : null);

    const identity = await proxy.prisma.upstreamIdentity.findUniqueOrThrow({
      where: {
        provider_issuer_subject: {
          provider: preset.name,
          issuer: preset.issuer(fake),
          subject: preset.allowed.subject,
        },
      },
    });
    expect(identity.userId).toBe(subject);
    const stored = await proxy.prisma.upstreamToken.findUniqueOrThrow({
      where: { userId_connection: { userId: subject, connection: 'upstream' } },
    });
    expect(stored.issuer).toBe(preset.issuer(fake));
    // Okta and Auth0 with offline_access, Keycloak always: the refresh token is kept, sealed.
    expect(stored.refreshToken).toMatch(/^v1\./);
    if (preset.name === 'auth0') {
      const auth0 = fake as Awaited<ReturnType<typeof startAuth0Fake>>;
      const answer = fake.tokenAnswers.find((each) => typeof each['access_token'] === 'string');
      expect(auth0.audienceOf(String(answer!['access_token']))).toBe('https://api.acme.example');
    }
    // The provider's codes and tokens never reach the protected server.
    const atServer = server.recorder.exchanges
      .map((each) => JSON.stringify(each.headers) + each.body)
      .join('\n');
    for (const value of fake.issued()) expect(atServer.includes(value)).toBe(false);
  });

  it('refuses a person outside UPSTREAM_ALLOWED, storing nothing', async () => {
    await expectRefusedWithNothingStored(proxy, server.resource, preset.refused);
  });
});

describe('a preset whose upstream names another issuer than the one it derives', () => {
  let okta: OidcFake;
  let proxy: ProxyFixture;
  let resource: string;

  beforeAll(async () => {
    const port = await freePort();
    okta = await startOktaFake({
      users: [{ login: 'ada@acme.example', sub: '00u1ada0000000000001', email: 'ada@acme.example' }],
    });
    const app = okta.registerClient({ redirectUris: [proxyCallback(port)] });
    ({ resource } = await reserveResource());
    // The Okta org's own authorization server, configured as an Auth0 tenant: the derived issuer is the org URL with
    // a slash, which a URL parser reads as the same URL as the org's issuer, but which is not the same string.
    proxy = await startProxy({
      port,
      upstream: { issuer: '', clientId: app.clientId, clientSecret: app.clientSecret },
      resource,
      env: { UPSTREAM_PROVIDER: 'auth0', UPSTREAM_BASE_URL: okta.baseUrl, UPSTREAM_SCOPES: '' },
    });
  });
  afterAll(async () => {
    await proxy?.close();
    await okta?.close();
  });

  it('stops before going upstream, with a page and nothing stored (RFC 8414 3.3: the issuer is compared as a string)', async () => {
    const before = await proxy.counts();
    const client = await proxy.createClient();
    const ua = new HeadlessUserAgent();
    const result = await walk(
      ua,
      await ua.get(authorizationRequest(proxy, client, resource).url),
      client.redirectUri,
    );
    expect(result.pages).toEqual(['proxy-consent', 'other']);
    expect(result.response.status).toBe(502);
    expect(result.response.body).toContain('id="upstream-rejected"');
    expect(result.response.location).toBeUndefined();
    expect(okta.requests.some((each) => each.path.includes('/authorize'))).toBe(false);
    expect(await proxy.counts()).toEqual(before);
  });
});
