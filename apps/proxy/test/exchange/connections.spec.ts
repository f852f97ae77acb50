import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  createAuthorizedFetch,
  handleUrlElicitations,
  mcpTransportOptions,
  URL_ELICITATION_CAPABILITY,
} from '@portcullis/client';
import {
  freePort,
  HeadlessUserAgent,
  startGithubFake,
  type GithubFake,
  type UserAgentResponse,
} from '@portcullis/testing';
import { PersonAtBrowser, walk } from '../support/person.js';
import { reserveResource, startProtectedServer, type ProtectedServer } from '../support/protected-server.js';
import { proxyCallback, startProxy, type ProxyFixture } from '../support/proxy.fixture.js';
import { exchangeToken, registerResourceServer } from '../support/token-exchange.js';
import { startUpstream, type UpstreamFixture } from '../support/upstream.fixture.js';

/** Where no walk here may ever end: connecting redirects to no client. */
const NOWHERE = 'http://127.0.0.1/never';
const SLOW = 120_000;

const OCTOCAT = { id: 583231, login: 'octocat', name: 'The Octocat' };
const MONALISA = { id: 1001, login: 'monalisa', name: 'Mona Lisa' };

const textOf = (result: unknown) => (result as { content: { text: string }[] }).content[0]!.text;

/**
 * `CONNECTIONS`: people sign in to the proxy at one provider (an OpenID provider here, Entra in the words)
 * while a tool needs another (GitHub). The connection has a client and a callback of its own; its account there is
 * not the sign-in one, so the proxy's session decides whose it is: a link of one user's does nothing in another's
 * browser, and a browser without a session signs in first.
 */
describe('a connection beyond the sign-in provider: sign in at an OpenID provider, connect GitHub for a tool', () => {
  let upstream: UpstreamFixture;
  let github: GithubFake;
  let proxy: ProxyFixture;
  let server: ProtectedServer;
  let authorizedFetch: ReturnType<typeof createAuthorizedFetch>;
  let githubHost: string;
  let githubApp: { clientId: string };
  /** The browser Alice connected GitHub in (signed in at the proxy since). */
  let alicesBrowser: HeadlessUserAgent;

  beforeAll(async () => {
    const port = await freePort();
    upstream = await startUpstream({ redirectUri: proxyCallback(port) });
    github = await startGithubFake({ users: [OCTOCAT, MONALISA] });
    const app = github.registerApp({
      callbackUrl: `http://localhost:${port}/connections/github/callback`,
      kind: 'oauth-app',
    });
    githubApp = app;
    const { recorder, resource } = await reserveResource();
    proxy = await startProxy({
      port,
      upstream,
      resource,
      env: {
        CONNECTIONS: JSON.stringify({
          github: {
            provider: 'github',
            base_url: github.baseUrl,
            client_id: app.clientId,
            client_secret: app.clientSecret,
            scopes: 'read:user',
          },
        }),
      },
    });
    const registered = await registerResourceServer(proxy, resource, undefined, ['github']);
    server = await startProtectedServer({
      recorder,
      resource,
      authorizationServer: proxy.issuer,
      env: {
        UPSTREAM_USER_API_URL: `${github.apiUrl}/user`,
        UPSTREAM_CONNECTION: 'github',
        INTROSPECTION_CLIENT_ID: registered.clientId,
        INTROSPECTION_CLIENT_SECRET: registered.secret,
      },
    });
    githubHost = new URL(github.apiUrl).host;
    // Alice signs in to the MCP client through the proxy at the OpenID provider.
    authorizedFetch = createAuthorizedFetch({
      resource: server.resource,
      userAgent: new PersonAtBrowser(new HeadlessUserAgent(), 'http://127.0.0.1/callback', {
        login: 'alice',
      }),
      clientRegistration: { clientName: 'Notes by DCR' },
    });
  }, SLOW);
  afterAll(async () => {
    await server?.close();
    await proxy?.close();
    await github?.close();
    await upstream?.close();
  });

  /** What went wrong in an elicitation handler (the SDK turns a throw there into a declined elicitation). */
  const failures: unknown[] = [];

  /** A client of the protected server as Alice, with URL elicitation when `elicit` handles it. */
  async function mcpClient(elicit?: (url: URL) => Promise<void>): Promise<Client> {
    const client = new Client(
      { name: 'connections-tests', version: '1.0.0' },
      elicit ? { capabilities: URL_ELICITATION_CAPABILITY } : {},
    );
    if (elicit) {
      handleUrlElicitations(client, async (elicitation) => {
        try {
          await elicit(elicitation.url);
        } catch (error) {
          failures.push(error);
          throw error;
        }
        return 'completed';
      });
    }
    await client.connect(
      new StreamableHTTPClientTransport(new URL(server.resource), mcpTransportOptions(authorizedFetch)),
    );
    return client;
  }

  /** The connect link a tool error names. */
  async function connectLink(): Promise<string> {
    const client = await mcpClient();
    try {
      const result = await client.callTool({ name: 'upstream_whoami', arguments: {} });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain(`Connect your account at ${githubHost}`);
      const link = /Open (\S+), then try again/.exec(textOf(result))?.[1];
      expect(link).toBeDefined();
      return link!;
    } finally {
      await client.close();
    }
  }

  /** Everything connecting writes. */
  async function written() {
    const [tokens, states, sessions, users, identities, used] = await Promise.all([
      proxy.prisma.upstreamToken.findMany({ orderBy: [{ userId: 'asc' }, { connection: 'asc' }] }),
      proxy.prisma.upstreamState.count(),
      proxy.prisma.loginSession.count(),
      proxy.prisma.user.count(),
      proxy.prisma.upstreamIdentity.count(),
      proxy.prisma.usedJwtId.count({ where: { issuer: 'connect-ticket:' } }),
    ]);
    return { tokens, states, sessions, users, identities, used };
  }

  const githubRows = async () => proxy.prisma.upstreamToken.findMany({ where: { connection: 'github' } });

  /** A browser signed in to the proxy's account page at the OpenID provider as `login`. */
  async function signedIn(login: string): Promise<HeadlessUserAgent> {
    const ua = new HeadlessUserAgent();
    const signIn = await ua.get(`${proxy.issuer}/account`);
    const result = await walk(ua, await ua.submit(signIn.form()), `${proxy.issuer}/account`, { login });
    expect(result.stoppedAt?.href).toBe(`${proxy.issuer}/account`);
    return ua;
  }

  it('offers GitHub, which Alice has not connected: the tool names the connect link, and nothing is kept', async () => {
    const link = await connectLink();
    const url = new URL(link);
    expect(`${url.origin}${url.pathname}`).toBe(`${proxy.issuer}/connections/github/connect`);
    expect(await githubRows()).toEqual([]);
    // The proxy's metadata lists the exchange; the connection's callback is its own, not the sign-in's.
    const page = await new HeadlessUserAgent().get(link);
    expect(page.status).toBe(200);
    expect(page.body).toContain(`<h1>Connect ${new URL(github.baseUrl).host}</h1>`);
  });

  it('lets a resource server exchange only for the connections its operator named', async () => {
    await connectLink();
    const subjectToken = server.recorder.exchanges
      .map((each) => /^Bearer (.+)$/.exec(String(each.headers.authorization ?? ''))?.[1])
      .findLast((each) => each !== undefined)!;
    // Registered without --connections: the sign-in provider's alone.
    const signInOnly = await registerResourceServer(proxy, server.resource);
    const events = () => proxy.prisma.securityEvent.count({ where: { type: 'token_exchange.refused' } });
    const before = await events();
    const refused = await exchangeToken(`${proxy.issuer}/token`, signInOnly, {
      subject_token: subjectToken,
      audience: 'github',
    });
    expect(refused).toEqual({
      status: 400,
      body: {
        error: 'invalid_target',
        error_description: 'this resource server may not exchange for github',
      },
    });
    expect(await events()).toBe(before + 1);
    const allowed = await exchangeToken(`${proxy.issuer}/token`, signInOnly, { subject_token: subjectToken });
    expect(allowed.status).toBe(200);
    expect(allowed.body['issued_token_type']).toBe('urn:ietf:params:oauth:token-type:access_token');
  });

  it(
    'does nothing with Alice’s link in Monalisa’s browser: not in her session, nor when she signs in on the way',
    async () => {
      const link = await connectLink();
      const monalisasBrowser = await signedIn('monalisa');
      const before = await written();

      // Signed in at the proxy as someone else: refused on the button, before anything goes to GitHub.
      const page = await monalisasBrowser.get(link);
      const refused = await monalisasBrowser.submit(page.form());
      expect(refused.status).toBe(403);
      expect(refused.body).toContain('made for another account');
      expect(refused.location).toBeUndefined();

      // A browser without a session signs in first: as Monalisa, she is refused there, and gets no session.
      const fresh = new HeadlessUserAgent();
      const toSignIn = await fresh.submit((await fresh.get(link)).form());
      expect(toSignIn.status).toBe(303);
      expect(toSignIn.location!.startsWith(upstream.issuer)).toBe(true);
      const walked = await walk(fresh, toSignIn, NOWHERE, { login: 'monalisa' });
      expect(walked.response.status).toBe(403);
      expect(walked.response.body).toContain('someone else than the person this link was made for');
      expect(walked.visited.some((url) => url.startsWith(github.baseUrl))).toBe(false);

      // Nothing kept: no token, no session, no user, the ticket not used up; only the refused state is gone.
      const after = await written();
      expect(after).toEqual({ ...before, states: after.states });
      expect(after.states).toBeLessThanOrEqual(before.states);
      expect((await fresh.get(link)).status).toBe(200);
    },
    SLOW,
  );

  it(
    'asks for a URL elicitation; Alice signs in, connects GitHub in her browser, and the retry answers as Octocat',
    async () => {
      const before = await written();
      const elicited: URL[] = [];
      const client = await mcpClient(async (url) => {
        elicited.push(url);
        // A browser without a session at the proxy: Alice signs in first, then comes back to the link.
        const ua = new HeadlessUserAgent();
        const toSignIn = await ua.submit((await ua.get(url.href)).form());
        const signedIn = await walk(ua, toSignIn, NOWHERE, { login: 'alice' });
        expect(signedIn.response.status).toBe(200);
        const back = new URL(signedIn.response.url);
        expect(back.pathname).toBe(url.pathname);
        expect(back.searchParams.get('ticket')).toBe(url.searchParams.get('ticket'));
        // Now the button goes to GitHub, with the connection's own client and callback.
        const toGithub = await ua.submit(signedIn.response.form());
        expect(toGithub.status).toBe(303);
        const authorize = new URL(toGithub.location!);
        expect(authorize.origin).toBe(github.baseUrl);
        expect(authorize.searchParams.get('redirect_uri')).toBe(
          `${proxy.issuer}/connections/github/callback`,
        );
        const atGithub = await walk(ua, toGithub, `${proxy.issuer}/connections/github/callback`, {
          login: 'octocat',
        });
        const callback = atGithub.stoppedAt!;
        // GitHub's answer brought to the sign-in provider's callback instead is refused (mix-up); the sign-in it
        // belonged to is dead with it (its browser cookie cleared), and nothing is stored.
        const mixedUp = await ua.get(`${proxy.issuer}/upstream/callback${callback.search}`);
        expect(mixedUp.status).toBe(400);
        expect(mixedUp.body).toContain('another service than the one it was sent to');
        expect((await ua.get(callback.href)).status).toBe(403);
        expect(await githubRows()).toEqual([]);
        // The link itself was not used up: Alice opens it again, in her session now, and connects.
        const again = await ua.submit((await ua.get(url.href)).form());
        expect(new URL(again.location!).origin).toBe(github.baseUrl);
        const connected = await walk(ua, again, NOWHERE, { login: 'octocat' });
        expect(connected.visited.at(-1)).toMatch(
          new RegExp(`^${proxy.issuer}/connections/github/callback\\?`),
        );
        expect(connected.response.status).toBe(200);
        expect(connected.response.body).toContain('id="connected"');
        alicesBrowser = ua;
      });
      try {
        const result = await client.callTool({ name: 'upstream_whoami', arguments: {} });
        expect(failures).toEqual([]);
        expect(result.isError).toBeFalsy();
        expect(JSON.parse(textOf(result))).toMatchObject({ id: OCTOCAT.id, login: 'octocat' });
      } finally {
        await client.close();
      }
      expect(elicited).toHaveLength(1);
      expect(`${elicited[0]!.origin}${elicited[0]!.pathname}`).toBe(
        `${proxy.issuer}/connections/github/connect`,
      );

      // One GitHub row, Alice's (the user her MCP sign-in made), sealed; GitHub's access token is nowhere in clear.
      const [row] = await githubRows();
      const alice = await proxy.prisma.upstreamIdentity.findFirstOrThrow({ where: { subject: 'alice' } });
      expect(await githubRows()).toHaveLength(1);
      expect(row).toMatchObject({ userId: alice.userId, scopes: ['read:user'] });
      expect(new URL(row!.issuer).host).toBe(new URL(github.baseUrl).host);
      for (const issued of github.issued()) expect(JSON.stringify(row).includes(issued)).toBe(false);
      // Connecting GitHub made no user and no upstream identity of Octocat: GitHub signs no one in here.
      const after = await written();
      expect(after.users).toBe(before.users);
      expect(after.identities).toBe(before.identities);
      const connected = await proxy.prisma.securityEvent.findMany({
        where: { type: 'upstream_connection.connected' },
      });
      expect(connected).toHaveLength(1);
      expect(connected[0]).toMatchObject({
        userId: alice.userId,
        detail: { connection: 'github', subject: String(OCTOCAT.id) },
      });
    },
    SLOW,
  );

  it(
    'lists GitHub on Alice’s account page: Disconnect, Connect, and a connect whose session ended on the way',
    async () => {
      const accountPage = async () => {
        const page = await alicesBrowser.get(`${proxy.issuer}/account`);
        expect(page.status).toBe(200);
        return page;
      };
      const formOf = (page: UserAgentResponse, action: string) => {
        const form = page
          .forms()
          .find(
            (each) =>
              each.action === `${proxy.issuer}/account/connections/${action}` &&
              each.fields['connection']?.[0] === 'github',
          );
        if (!form) throw new Error(`no ${action} form for github`);
        return form;
      };
      const [connectedRow] = await githubRows();
      const disconnected = await alicesBrowser.submit(formOf(await accountPage(), 'disconnect'));
      expect(disconnected.location).toBe(`${proxy.issuer}/account?connections=disconnected`);
      expect(await githubRows()).toEqual([]);
      // GitHub was told to end the authorization (its API), so the app is gone from Octocat's GitHub settings.
      expect(github.deletedGrants).toEqual([{ userId: OCTOCAT.id, clientId: githubApp.clientId }]);
      const removed = await proxy.prisma.securityEvent.findFirstOrThrow({
        where: { type: 'upstream_connection.removed', userId: connectedRow!.userId },
      });
      expect(removed.detail).toMatchObject({ connection: 'github', by: 'user', revoked: 'revoked' });

      // Connect, from the page: straight to GitHub, in her session.
      const page = await accountPage();
      expect(page.body).toContain('Not connected');
      const toGithub = await alicesBrowser.submit(formOf(page, 'connect'));
      expect(toGithub.status).toBe(303);
      expect(new URL(toGithub.location!).origin).toBe(github.baseUrl);
      const atGithub = await walk(alicesBrowser, toGithub, NOWHERE, { login: 'octocat' });
      expect(atGithub.response.status).toBe(200);
      expect(atGithub.response.body).toContain('id="connected"');
      expect(await githubRows()).toHaveLength(1);
      const listed = await accountPage();
      expect(listed.body).toMatch(/data-connection="github">[\s\S]*?Connected/);

      // Disconnected again, Connect goes to GitHub; Alice signs out before GitHub answers: the callback finds no
      // session of hers and connects nothing.
      await alicesBrowser.submit(formOf(listed, 'disconnect'));
      const toGithubAgain = await alicesBrowser.submit(formOf(await accountPage(), 'connect'));
      const answered = await walk(
        alicesBrowser,
        toGithubAgain,
        `${proxy.issuer}/connections/github/callback`,
        {
          login: 'octocat',
        },
      );
      const signOut = (await accountPage()).forms().find((each) => each.action.endsWith('/account/logout'));
      await alicesBrowser.submit(signOut!);
      const refused = await alicesBrowser.get(answered.stoppedAt!.href);
      expect(refused.status).toBe(403);
      expect(refused.body).toContain('You are not signed in here as the person this link was made for');
      expect(await githubRows()).toEqual([]);
    },
    SLOW,
  );

  it(
    'deletes the tokens on Disconnect even when GitHub cannot be asked to end the authorization, and says so',
    async () => {
      const ua = await signedIn('alice');
      const page = await ua.get(`${proxy.issuer}/account`);
      const connect = page.forms().find((each) => each.action.endsWith('/account/connections/connect'))!;
      const connected = await walk(ua, await ua.submit(connect), NOWHERE, { login: 'octocat' });
      expect(connected.response.body).toContain('id="connected"');
      expect(await githubRows()).toHaveLength(1);
      const deletedBefore = github.deletedGrants.length;
      // The app's client secrets are deleted at GitHub: its API refuses the deletion of the authorization.
      github.deleteClientSecrets(githubApp.clientId);
      const listed = await ua.get(`${proxy.issuer}/account`);
      const disconnect = listed
        .forms()
        .find(
          (each) =>
            each.action.endsWith('/account/connections/disconnect') &&
            each.fields['connection']?.[0] === 'github',
        )!;
      const answered = await ua.submit(disconnect);
      expect(answered.location).toBe(`${proxy.issuer}/account?connections=disconnected-here`);
      const shown = await ua.follow(answered);
      expect(shown.body).toContain('The provider could not be asked to end the access it gave');
      expect(await githubRows()).toEqual([]);
      expect(github.deletedGrants).toHaveLength(deletedBefore);
      const events = await proxy.prisma.securityEvent.findMany({
        where: { type: 'upstream_connection.removed' },
        orderBy: { at: 'desc' },
        take: 1,
      });
      expect(events[0]!.detail).toMatchObject({ connection: 'github', revoked: 'failed' });
    },
    SLOW,
  );
});
