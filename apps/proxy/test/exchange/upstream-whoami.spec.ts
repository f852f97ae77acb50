import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  createAuthorizedFetch,
  handleUrlElicitations,
  mcpTransportOptions,
  URL_ELICITATION_CAPABILITY,
  type UrlElicitation,
} from '@portcullis/client';
import {
  freePort,
  HeadlessUserAgent,
  startGithubFake,
  type GithubFake,
  type GithubFakeApp,
} from '@portcullis/testing';
import { PersonAtBrowser, walk } from '../support/person.js';
import { reserveResource, startProtectedServer, type ProtectedServer } from '../support/protected-server.js';
import { proxyCallback, startProxy, type ProxyFixture } from '../support/proxy.fixture.js';
import { registerResourceServer } from '../support/token-exchange.js';

const OCTOCAT = {
  id: 583231,
  login: 'octocat',
  name: 'The Octocat',
  emails: [{ email: 'octocat@github.example', primary: true, verified: true }],
};

const textOf = (result: unknown) => (result as { content: { text: string }[] }).content[0]!.text;

describe('an MCP tool calls GitHub as the user: the protected server exchanges the user’s token at the proxy', () => {
  let github: GithubFake;
  let app: GithubFakeApp;
  let proxy: ProxyFixture;
  let server: ProtectedServer;
  let client: Client;
  let authorizedFetch: ReturnType<typeof createAuthorizedFetch>;
  let bearers: () => string[];

  beforeAll(async () => {
    const port = await freePort();
    github = await startGithubFake({ users: [OCTOCAT] });
    app = github.registerApp({ callbackUrl: proxyCallback(port), kind: 'github-app' });
    const { recorder, resource } = await reserveResource();
    proxy = await startProxy({
      port,
      upstream: { issuer: '', clientId: app.clientId, clientSecret: app.clientSecret },
      resource,
      env: { UPSTREAM_PROVIDER: 'github', UPSTREAM_BASE_URL: github.baseUrl, UPSTREAM_SCOPES: '' },
    });
    const registered = await registerResourceServer(proxy, resource);
    server = await startProtectedServer({
      recorder,
      resource,
      authorizationServer: proxy.issuer,
      env: {
        UPSTREAM_USER_API_URL: `${github.apiUrl}/user`,
        INTROSPECTION_CLIENT_ID: registered.clientId,
        INTROSPECTION_CLIENT_SECRET: registered.secret,
      },
    });
    const person = new PersonAtBrowser(new HeadlessUserAgent(), 'http://127.0.0.1/callback', {
      login: 'octocat',
    });
    authorizedFetch = createAuthorizedFetch({
      resource: server.resource,
      userAgent: person,
      clientRegistration: { clientName: 'Notes by DCR' },
    });
    client = new Client({ name: 'upstream-whoami-tests', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(server.resource), mcpTransportOptions(authorizedFetch)),
    );
    bearers = () =>
      server.recorder.exchanges
        .map((each) => /^Bearer (.+)$/.exec(String(each.headers.authorization ?? ''))?.[1])
        .filter((each): each is string => each !== undefined);
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
    await proxy?.close();
    await github?.close();
  });

  it('lists upstream_whoami beside the notes tools', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('upstream_whoami');
  });

  it('answers with the GitHub identity, asked with GitHub’s token for that user, never the client’s', async () => {
    const result = await client.callTool({ name: 'upstream_whoami', arguments: {} });
    expect(result.isError).toBeFalsy();
    expect(JSON.parse(textOf(result))).toMatchObject({
      id: OCTOCAT.id,
      login: 'octocat',
      name: 'The Octocat',
    });
    // GitHub saw a GitHub token only; the MCP client saw none of GitHub's tokens.
    const atGithub = github.requests.map((each) => JSON.stringify(each.headers)).join('\n');
    for (const bearer of bearers()) expect(atGithub.includes(bearer)).toBe(false);
    for (const value of github.issued()) expect(textOf(result).includes(value)).toBe(false);
    const userCalls = github.requests.filter((each) => each.path === '/api/v3/user');
    const presented = /^Bearer (.+)$/i.exec(String(userCalls.at(-1)!.headers.authorization))?.[1];
    expect(github.issued().has(presented!)).toBe(true);
  });

  it('exchanges once for several calls while GitHub’s token is good', async () => {
    const exchanges = () =>
      proxy.prisma.upstreamToken
        .findFirstOrThrow({ where: { connection: 'upstream' } })
        .then((row) => row.lastUsedAt);
    const before = await exchanges();
    await client.callTool({ name: 'upstream_whoami', arguments: {} });
    await client.callTool({ name: 'upstream_whoami', arguments: {} });
    // The protected server kept the exchanged token: the vault was not asked again.
    expect(await exchanges()).toEqual(before);
  });

  it('tells the user to connect again when GitHub no longer honours the grant, and keeps nothing of it', async () => {
    const row = await proxy.prisma.upstreamToken.findFirstOrThrow({ where: { connection: 'upstream' } });
    github.revokeAuthorization(OCTOCAT.id, app.clientId);
    await proxy.prisma.upstreamToken.update({
      where: { userId_connection: { userId: row.userId, connection: 'upstream' } },
      data: { expiresAt: new Date(Date.now() + 10_000) },
    });
    // The exchanged token the server holds is GitHub's old one, now refused by GitHub: forgotten, then exchanged
    // again, which the vault cannot refresh.
    const refused = await client.callTool({ name: 'upstream_whoami', arguments: {} });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain('no longer accepts your token');
    const result = await client.callTool({ name: 'upstream_whoami', arguments: {} });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain(`Connect your account at ${new URL(github.apiUrl).host}`);
    expect(
      await proxy.prisma.upstreamToken.findUniqueOrThrow({
        where: { userId_connection: { userId: row.userId, connection: 'upstream' } },
      }),
    ).toMatchObject({ accessToken: null, refreshToken: null });
  });

  it('asks a client that takes URL elicitations to send the user to connect, and answers once they have', async () => {
    const elicited: UrlElicitation[] = [];
    const connecting = new Client(
      { name: 'upstream-whoami-elicitation', version: '1.0.0' },
      { capabilities: URL_ELICITATION_CAPABILITY },
    );
    handleUrlElicitations(connecting, async (elicitation) => {
      elicited.push(elicitation);
      // The person opens the link in their browser, presses the button, and signs in at GitHub as themselves.
      const ua = new HeadlessUserAgent();
      const page = await ua.get(elicitation.url.href);
      const result = await walk(ua, await ua.submit(page.form()), 'http://127.0.0.1/nowhere', {
        login: 'octocat',
      });
      expect(result.response.status).toBe(200);
      return 'completed';
    });
    await connecting.connect(
      new StreamableHTTPClientTransport(new URL(server.resource), mcpTransportOptions(authorizedFetch)),
    );
    try {
      const result = await connecting.callTool({ name: 'upstream_whoami', arguments: {} });
      expect(result.isError).toBeFalsy();
      expect(JSON.parse(textOf(result))).toMatchObject({ id: OCTOCAT.id, login: 'octocat' });
    } finally {
      await connecting.close();
    }
    expect(elicited).toHaveLength(1);
    expect(elicited[0]!.message).toContain(`Connect your account at ${new URL(github.apiUrl).host}`);
    expect(`${elicited[0]!.url.origin}${elicited[0]!.url.pathname}`).toBe(
      `${proxy.issuer}/connections/upstream/connect`,
    );
    const row = await proxy.prisma.upstreamToken.findFirstOrThrow({ where: { connection: 'upstream' } });
    expect(row.reconnectRequiredAt).toBeNull();
  });
});
