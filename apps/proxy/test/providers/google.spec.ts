import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { freePort, HeadlessUserAgent, startGoogleFake, type GoogleFake } from '@portcullis/testing';
import { walk } from '../support/person.js';
import { expectRefusedWithNothingStored, signInWithMcpClient } from '../support/provider-flow.js';
import { reserveResource, startProtectedServer, type ProtectedServer } from '../support/protected-server.js';
import {
  authorizationRequest,
  proxyCallback,
  startProxy,
  type ProxyFixture,
} from '../support/proxy.fixture.js';

describe('the proxy in front of Google (UPSTREAM_PROVIDER=google)', () => {
  let google: GoogleFake;
  let proxy: ProxyFixture;
  let server: ProtectedServer;

  beforeAll(async () => {
    const port = await freePort();
    google = await startGoogleFake({
      users: [
        {
          login: 'ada@acme.example',
          sub: '110169484474386276334',
          email: 'ada@acme.example',
          name: 'Ada',
          hd: 'acme.example',
        },
        // A consumer account with a verified address in the Workspace's domain: no `hd`, so not of the Workspace.
        { login: 'mallory@gmail.example', sub: '110169484474386270000', email: 'mallory@acme.example' },
      ],
    });
    const app = google.registerClient({ redirectUris: [proxyCallback(port)] });
    const { recorder, resource } = await reserveResource();
    proxy = await startProxy({
      port,
      upstream: { issuer: '', clientId: app.clientId, clientSecret: app.clientSecret },
      resource,
      env: {
        UPSTREAM_PROVIDER: 'google',
        UPSTREAM_BASE_URL: google.baseUrl,
        // The preset's default scopes: openid email profile.
        UPSTREAM_SCOPES: '',
        UPSTREAM_ALLOWED: JSON.stringify({ google_hosted_domains: ['acme.example'] }),
      },
    });
    server = await startProtectedServer({ recorder, resource, authorizationServer: proxy.issuer });
  });
  afterAll(async () => {
    await server?.close();
    await proxy?.close();
    await google?.close();
  });

  it('signs the MCP client in with Google, asking offline access with consent, and keeps the refresh token', async () => {
    const { pages, subject } = await signInWithMcpClient(server, proxy, 'ada@acme.example');
    expect(pages).toEqual([['proxy-consent', 'upstream-login', 'upstream-consent']]);

    // The authorization request Google received: offline access and consent, so that it issues a refresh token.
    const authorize = google.requests.find((each) => each.path.startsWith('/o/oauth2/v2/auth?'));
    const params = new URL(authorize!.path, google.baseUrl).searchParams;
    expect(params.get('access_type')).toBe('offline');
    expect(params.get('prompt')).toBe('consent');
    expect(params.get('scope')).toBe('openid email profile');
    expect(params.get('code_challenge_method')).toBe('S256');
    expect(params.get('nonce')).toBeTruthy();
    expect(google.tokenAnswers.at(-1)).toHaveProperty('refresh_token');

    // The person is Google's `sub` within its issuer; the address is the verified one of the ID token.
    const identity = await proxy.prisma.upstreamIdentity.findUniqueOrThrow({
      where: {
        provider_issuer_subject: {
          provider: 'google',
          issuer: google.baseUrl,
          subject: '110169484474386276334',
        },
      },
    });
    expect(identity.userId).toBe(subject);
    const user = await proxy.prisma.user.findUniqueOrThrow({ where: { id: identity.userId } });
    expect(user).toMatchObject({ name: 'Ada', email: 'ada@acme.example', emailVerified: true });
    const stored = await proxy.prisma.upstreamToken.findUniqueOrThrow({
      where: { userId_connection: { userId: identity.userId, connection: 'upstream' } },
    });
    expect(stored.refreshToken).toBeTruthy();
    const notes = await server.app.database.database.prisma.note.findMany();
    expect(notes.map((note) => note.owner)).toEqual([identity.userId]);

    // Google's codes and tokens never reach the protected server.
    const atServer = server.recorder.exchanges
      .map((each) => JSON.stringify(each.headers) + each.body)
      .join('\n');
    for (const value of google.issued()) expect(atServer.includes(value)).toBe(false);
  });

  it('asks Google to let the person pick an account when the client asks prompt=login, which Google would refuse', async () => {
    const client = await proxy.createClient();
    const ua = new HeadlessUserAgent();
    const result = await walk(
      ua,
      await ua.get(authorizationRequest(proxy, client, server.resource, { prompt: 'login' }).url),
      client.redirectUri,
      { login: 'ada@acme.example' },
    );
    expect(result.pages).toEqual(['proxy-consent', 'upstream-login', 'upstream-consent']);
    expect(result.stoppedAt?.searchParams.get('code')).toBeTruthy();
    const authorize = google.requests.filter((each) => each.path.startsWith('/o/oauth2/v2/auth?')).at(-1);
    expect(new URL(authorize!.path, google.baseUrl).searchParams.get('prompt')).toBe(
      'consent select_account',
    );
  });

  it('refuses an account outside the allowed Workspace even with a verified address in its domain, storing nothing', async () => {
    await expectRefusedWithNothingStored(proxy, server.resource, 'mallory@gmail.example');
  });
});
