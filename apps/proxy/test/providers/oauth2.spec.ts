import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { freePort, HeadlessUserAgent, startGithubFake, type GithubFake } from '@portcullis/testing';
import { decodeJwt } from 'jose';
import { walk } from '../support/person.js';
import { expectRefusedWithNothingStored, signInWithMcpClient } from '../support/provider-flow.js';
import { reserveResource, startProtectedServer, type ProtectedServer } from '../support/protected-server.js';
import {
  authorizationRequest,
  proxyCallback,
  redeem,
  startProxy,
  type ProxyFixture,
} from '../support/proxy.fixture.js';

const RESOURCE = 'http://127.0.0.1:4199/mcp';

// GitHub's OAuth endpoints and REST API, configured by hand as any OAuth 2.0 server without discovery would be: a
// plain OAuth server whose person is the `id` member of a REST answer.
describe('the proxy in front of an OAuth 2.0 server without discovery (UPSTREAM_PROVIDER=oauth2)', () => {
  let github: GithubFake;
  let proxy: ProxyFixture;

  beforeAll(async () => {
    const port = await freePort();
    github = await startGithubFake({ users: [{ id: 31337, login: 'lin', name: 'Lin' }] });
    const app = github.registerApp({ callbackUrl: proxyCallback(port) });
    proxy = await startProxy({
      port,
      upstream: { issuer: '', clientId: app.clientId, clientSecret: app.clientSecret },
      resource: RESOURCE,
      env: {
        UPSTREAM_PROVIDER: 'oauth2',
        UPSTREAM_AUTHORIZATION_ENDPOINT: `${github.baseUrl}/login/oauth/authorize`,
        UPSTREAM_TOKEN_ENDPOINT: `${github.baseUrl}/login/oauth/access_token`,
        UPSTREAM_USERINFO_ENDPOINT: `${github.apiUrl}/user`,
        UPSTREAM_SUBJECT_CLAIM: 'id',
        UPSTREAM_TOKEN_ENDPOINT_AUTH_METHOD: 'client_secret_post',
        UPSTREAM_SCOPES: 'read:user',
      },
    });
  });
  afterAll(async () => {
    await proxy?.close();
    await github?.close();
  });

  it('signs the person in at the configured endpoints and names them by the configured member', async () => {
    const client = await proxy.createClient();
    const ua = new HeadlessUserAgent();
    const request = authorizationRequest(proxy, client, RESOURCE);
    const result = await walk(ua, await ua.get(request.url), client.redirectUri, { login: 'lin' });
    expect(result.pages).toEqual(['proxy-consent', 'upstream-login', 'upstream-consent']);
    const token = await redeem(proxy, client, result.stoppedAt!, request, RESOURCE);
    expect(token.status).toBe(200);

    // Keyed within the authorization endpoint's origin, by the REST answer's `id`.
    const identity = await proxy.prisma.upstreamIdentity.findUniqueOrThrow({
      where: { provider_issuer_subject: { provider: 'oauth2', issuer: github.baseUrl, subject: '31337' } },
    });
    expect(decodeJwt(String(token.body['access_token']))).toMatchObject({
      sub: identity.userId,
      aud: RESOURCE,
    });
    const user = await proxy.prisma.user.findUniqueOrThrow({ where: { id: identity.userId } });
    expect(user).toMatchObject({ name: 'Lin', email: null });

    // The secret went in the body as configured, and the token only to the configured UserInfo endpoint.
    const exchange = github.requests.find((each) => each.path === '/login/oauth/access_token');
    expect(new URLSearchParams(exchange!.body).get('client_secret')).toBeTruthy();
    expect(exchange!.headers.authorization).toBeUndefined();
    const withToken = github.requests.filter((each) => each.headers.authorization !== undefined);
    expect(withToken.map((each) => each.path)).toEqual(['/api/v3/user']);
  });
});

describe('the oauth2 preset with the official MCP client and the allowed-user rules', () => {
  let github: GithubFake;
  let proxy: ProxyFixture;
  let server: ProtectedServer;

  beforeAll(async () => {
    const port = await freePort();
    github = await startGithubFake({
      users: [
        { id: 31337, login: 'lin', name: 'Lin' },
        { id: 4242, login: 'eve', name: 'Eve' },
      ],
    });
    const app = github.registerApp({ callbackUrl: proxyCallback(port) });
    const { recorder, resource } = await reserveResource();
    proxy = await startProxy({
      port,
      upstream: { issuer: '', clientId: app.clientId, clientSecret: app.clientSecret },
      resource,
      env: {
        UPSTREAM_PROVIDER: 'oauth2',
        UPSTREAM_AUTHORIZATION_ENDPOINT: `${github.baseUrl}/login/oauth/authorize`,
        UPSTREAM_TOKEN_ENDPOINT: `${github.baseUrl}/login/oauth/access_token`,
        UPSTREAM_USERINFO_ENDPOINT: `${github.apiUrl}/user`,
        UPSTREAM_SUBJECT_CLAIM: 'id',
        UPSTREAM_TOKEN_ENDPOINT_AUTH_METHOD: 'client_secret_post',
        UPSTREAM_SCOPES: 'read:user',
        UPSTREAM_ALLOWED: JSON.stringify({ subjects: ['31337'] }),
      },
    });
    server = await startProtectedServer({ recorder, resource, authorizationServer: proxy.issuer });
  });
  afterAll(async () => {
    await server?.close();
    await proxy?.close();
    await github?.close();
  });

  it('signs the MCP client in and lets it call the tools as the person the REST answer names', async () => {
    const { pages, subject } = await signInWithMcpClient(server, proxy, 'lin');
    expect(pages).toEqual([['proxy-consent', 'upstream-login', 'upstream-consent']]);
    const identity = await proxy.prisma.upstreamIdentity.findUniqueOrThrow({
      where: { provider_issuer_subject: { provider: 'oauth2', issuer: github.baseUrl, subject: '31337' } },
    });
    expect(identity.userId).toBe(subject);
  });

  it('refuses a subject UPSTREAM_ALLOWED does not name, storing nothing', async () => {
    await expectRefusedWithNothingStored(proxy, server.resource, 'eve');
  });
});
