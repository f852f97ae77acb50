import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createAuthorizedFetch, mcpTransportOptions } from '@portcullis/client';
import {
  freePort,
  HeadlessUserAgent,
  startGithubFake,
  type GithubFake,
  type GithubFakeApp,
} from '@portcullis/testing';
import { decodeJwt } from 'jose';
import { PersonAtBrowser, walk } from '../support/person.js';
import { expectRefusedWithNothingStored } from '../support/provider-flow.js';
import { reserveResource, startProtectedServer, type ProtectedServer } from '../support/protected-server.js';
import {
  authorizationRequest,
  proxyCallback,
  startProxy,
  type ProxyFixture,
} from '../support/proxy.fixture.js';

const REDIRECT_URI = 'http://127.0.0.1/callback';

const OCTOCAT = {
  id: 583231,
  login: 'octocat',
  name: 'The Octocat',
  emails: [
    { email: 'octocat@old.example', primary: false, verified: false },
    { email: 'octocat@github.example', primary: true, verified: true },
  ],
};
const UNVERIFIED = {
  id: 9001,
  login: 'newcomer',
  emails: [{ email: 'newcomer@example.com', primary: true, verified: false }],
};

/** The proxy with `UPSTREAM_PROVIDER=github` against the fake, at `port`, as Enterprise Server (`{base}/api/v3`). */
function startGithubProxy(port: number, github: GithubFake, app: GithubFakeApp, resource: string) {
  return startProxy({
    port,
    upstream: { issuer: '', clientId: app.clientId, clientSecret: app.clientSecret },
    resource,
    // The default scopes (read:user user:email) and API URL are the preset's.
    env: { UPSTREAM_PROVIDER: 'github', UPSTREAM_BASE_URL: github.baseUrl, UPSTREAM_SCOPES: '' },
  });
}

const textOf = (result: unknown) => (result as { content: { text: string }[] }).content[0]!.text;

describe('the proxy in front of GitHub (UPSTREAM_PROVIDER=github)', () => {
  let github: GithubFake;
  let proxy: ProxyFixture;
  let server: ProtectedServer;

  beforeAll(async () => {
    const port = await freePort();
    github = await startGithubFake({ users: [OCTOCAT, UNVERIFIED] });
    const app = github.registerApp({ callbackUrl: proxyCallback(port) });
    const { recorder, resource } = await reserveResource();
    proxy = await startGithubProxy(port, github, app, resource);
    server = await startProtectedServer({ recorder, resource, authorizationServer: proxy.issuer });
  });
  afterAll(async () => {
    await server?.close();
    await proxy?.close();
    await github?.close();
  });

  const identityOf = (subject: string) =>
    proxy.prisma.upstreamIdentity.findUniqueOrThrow({
      where: { provider_issuer_subject: { provider: 'github', issuer: github.apiUrl, subject } },
    });

  it('signs the MCP client in with GitHub and lets it call the tools as the person with that numeric id', async () => {
    const person = new PersonAtBrowser(new HeadlessUserAgent(), REDIRECT_URI, {
      login: 'octocat',
      password: 'password',
    });
    const authorizedFetch = createAuthorizedFetch({
      resource: server.resource,
      userAgent: person,
      clientRegistration: { clientName: 'Notes by DCR' },
    });
    const client = new Client({ name: 'proxy-github-tests', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(server.resource), mcpTransportOptions(authorizedFetch)),
    );
    try {
      const created = JSON.parse(
        textOf(
          await client.callTool({ name: 'notes_create', arguments: { title: 'signed in with GitHub' } }),
        ),
      ) as { id: string };
      const listed = JSON.parse(textOf(await client.callTool({ name: 'notes_list', arguments: {} }))) as {
        id: string;
      }[];
      expect(listed.map((note) => note.id)).toEqual([created.id]);
    } finally {
      await client.close();
    }
    expect(person.walks.map((each) => each.pages)).toEqual([
      ['proxy-consent', 'upstream-login', 'upstream-consent'],
    ]);

    // The person is GitHub's numeric id within that API, never the login; the address is the verified primary one.
    const identity = await identityOf('583231');
    const user = await proxy.prisma.user.findUniqueOrThrow({ where: { id: identity.userId } });
    expect(user).toMatchObject({
      name: 'The Octocat',
      email: 'octocat@github.example',
      emailVerified: true,
    });
    const notes = await server.app.database.database.prisma.note.findMany();
    expect(notes.map((note) => note.owner)).toEqual([identity.userId]);
    expect((await authorizedFetch.tokens())?.issuer).toBe(proxy.issuer);
    const bearers = server.recorder.exchanges
      .map((each) => /^Bearer (.+)$/.exec(String(each.headers.authorization ?? ''))?.[1])
      .filter((each): each is string => each !== undefined);
    expect(bearers.length).toBeGreaterThan(0);
    for (const bearer of bearers) {
      expect(decodeJwt(bearer)).toMatchObject({
        iss: proxy.issuer,
        aud: server.resource,
        sub: identity.userId,
      });
    }

    // GitHub's wire: the code redeemed for JSON, with the secret in the body and the PKCE verifier; its
    // comma-separated scope kept as the scopes granted; the API asked with a User-Agent.
    const exchange = github.requests.find((request) => request.path === '/login/oauth/access_token');
    expect(exchange?.headers.accept).toContain('application/json');
    const form = new URLSearchParams(exchange!.body);
    expect(form.get('client_secret')).toBeTruthy();
    expect(form.get('code_verifier')).toBeTruthy();
    const stored = await proxy.prisma.upstreamToken.findUniqueOrThrow({
      where: { userId_connection: { userId: identity.userId, connection: 'upstream' } },
    });
    expect(stored.scopes).toEqual(['read:user', 'user:email']);
    const apiCalls = github.requests.filter((request) => request.path.startsWith('/api/v3/'));
    expect(apiCalls.map((request) => request.path)).toEqual(['/api/v3/user', '/api/v3/user/emails']);
    for (const call of apiCalls) expect(call.headers['user-agent']).toBeTruthy();

    // GitHub's codes and tokens never reach the protected server.
    const atServer = server.recorder.exchanges
      .map((each) => JSON.stringify(each.headers) + each.body)
      .join('\n');
    for (const value of github.issued()) expect(atServer.includes(value)).toBe(false);
  });

  it('keeps the same local user when the person changes their GitHub login', async () => {
    const before = await identityOf('583231');
    const users = await proxy.prisma.user.count();
    github.renameUser(583231, 'octocat-renamed');
    const client = await proxy.createClient();
    const ua = new HeadlessUserAgent();
    const request = authorizationRequest(proxy, client, server.resource);
    const result = await walk(ua, await ua.get(request.url), client.redirectUri, {
      login: 'octocat-renamed',
    });
    expect(result.stoppedAt?.searchParams.get('code')).toBeTruthy();
    expect((await identityOf('583231')).userId).toBe(before.userId);
    expect(await proxy.prisma.user.count()).toBe(users);
  });

  it('keeps no address GitHub has not verified', async () => {
    const client = await proxy.createClient();
    const ua = new HeadlessUserAgent();
    const request = authorizationRequest(proxy, client, server.resource);
    const result = await walk(ua, await ua.get(request.url), client.redirectUri, { login: 'newcomer' });
    expect(result.stoppedAt?.searchParams.get('code')).toBeTruthy();
    const identity = await identityOf('9001');
    const user = await proxy.prisma.user.findUniqueOrThrow({ where: { id: identity.userId } });
    expect(user).toMatchObject({ email: null, emailVerified: false });
  });

  it('answers a pre-registered client access_denied when the person cancels at GitHub, and stores nothing', async () => {
    const client = await proxy.createClient({ origin: 'preregistered' });
    const before = await proxy.counts();
    const ua = new HeadlessUserAgent();
    const request = authorizationRequest(proxy, client, server.resource);
    const result = await walk(ua, await ua.get(request.url), client.redirectUri, {
      login: 'octocat-renamed',
      upstreamConsent: 'deny',
    });
    expect(result.pages).toEqual(['proxy-consent', 'upstream-login', 'upstream-consent']);
    expect(result.stoppedAt?.searchParams.get('error')).toBe('access_denied');
    expect(result.stoppedAt?.searchParams.get('state')).toBe(request.state);
    expect(result.stoppedAt?.searchParams.get('code')).toBeNull();
    const after = await proxy.counts();
    for (const table of [
      'codes',
      'grants',
      'accessTokens',
      'consents',
      'users',
      'upstreamIdentities',
    ] as const) {
      expect(after[table]).toBe(before[table]);
    }
  });
});

describe('GitHub refusing the code exchange with status 200 and an error', () => {
  let github: GithubFake;
  let proxy: ProxyFixture;

  beforeAll(async () => {
    const port = await freePort();
    github = await startGithubFake({ users: [OCTOCAT] });
    const app = github.registerApp({ callbackUrl: proxyCallback(port) });
    proxy = await startGithubProxy(port, github, app, 'http://127.0.0.1:4199/mcp');
    // The app's owner deletes its client secret at GitHub: the proxy's is no longer accepted.
    github.deleteClientSecrets(app.clientId);
  });
  afterAll(async () => {
    await proxy?.close();
    await github?.close();
  });

  it('shows the error page, sends the client nothing and stores nothing', async () => {
    const client = await proxy.createClient();
    const before = await proxy.counts();
    const ua = new HeadlessUserAgent();
    const request = authorizationRequest(proxy, client, 'http://127.0.0.1:4199/mcp');
    const result = await walk(ua, await ua.get(request.url), client.redirectUri, { login: 'octocat' });
    expect(result.pages).toEqual(['proxy-consent', 'upstream-login', 'upstream-consent', 'other']);
    expect(result.stoppedAt).toBeUndefined();
    expect(result.response.status).toBe(502);
    expect(result.response.body).toContain('id="upstream-rejected"');
    expect(result.response.location).toBeUndefined();
    // GitHub did answer the exchange, with 200.
    expect(github.requests.some((each) => each.path === '/login/oauth/access_token')).toBe(true);
    const after = await proxy.counts();
    for (const table of [
      'codes',
      'grants',
      'accessTokens',
      'refreshTokens',
      'consents',
      'users',
      'upstreamIdentities',
      'upstreamTokens',
    ] as const) {
      expect(after[table]).toBe(before[table]);
    }
  });
});

describe('who may sign in through GitHub (UPSTREAM_ALLOWED)', () => {
  let github: GithubFake;
  let proxy: ProxyFixture;
  const resource = 'http://127.0.0.1:4199/mcp';

  beforeAll(async () => {
    const port = await freePort();
    github = await startGithubFake({
      users: [
        { id: 1001, login: 'member', organizations: ['acme'] },
        {
          id: 1002,
          login: 'outsider',
          organizations: ['elsewhere'],
          emails: [{ email: 'outsider@acme.example', primary: true, verified: false }],
        },
      ],
    });
    const app = github.registerApp({ callbackUrl: proxyCallback(port) });
    proxy = await startProxy({
      port,
      upstream: { issuer: '', clientId: app.clientId, clientSecret: app.clientSecret },
      resource,
      env: {
        UPSTREAM_PROVIDER: 'github',
        UPSTREAM_BASE_URL: github.baseUrl,
        UPSTREAM_SCOPES: '',
        // An unverified address in the allowed domain admits nobody.
        UPSTREAM_ALLOWED: JSON.stringify({ github_organizations: ['acme'], email_domains: ['acme.example'] }),
      },
    });
  });
  afterAll(async () => {
    await proxy?.close();
    await github?.close();
  });

  const signIn = async (login: string) => {
    const client = await proxy.createClient();
    const ua = new HeadlessUserAgent();
    return walk(ua, await ua.get(authorizationRequest(proxy, client, resource).url), client.redirectUri, {
      login,
    });
  };

  it("admits a member of an allowed organization, asking GitHub with read:org and the person's token", async () => {
    const result = await signIn('member');
    expect(result.stoppedAt?.searchParams.get('code')).toBeTruthy();
    const authorize = github.requests.find((each) => each.path.startsWith('/login/oauth/authorize?'));
    expect(new URL(authorize!.path, github.baseUrl).searchParams.get('scope')).toBe(
      'read:user user:email read:org',
    );
    const asked = github.requests.filter((each) => each.path === '/api/v3/user/memberships/orgs/acme');
    expect(asked).toHaveLength(1);
  });

  it('refuses anyone else with a page saying why, stores nothing and records the refusal', async () => {
    await expectRefusedWithNothingStored(proxy, resource, 'outsider');
  });
});
