import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { parseKeyEncryptionKey } from '@portcullis/authorization';
import {
  freePort,
  HeadlessUserAgent,
  startGithubFake,
  type GithubFake,
  type GithubFakeApp,
  type UserAgentResponse,
} from '@portcullis/testing';
import { decodeJwt } from 'jose';
import { ConnectTickets } from '../../src/connections/connect-ticket.service.js';
import { walk, type Walk } from '../support/person.js';
import { exchangeToken, registerResourceServer } from '../support/token-exchange.js';
import {
  authorizationRequest,
  proxyCallback,
  redeem,
  repositoryOptions,
  startProxy,
  type ProxyFixture,
} from '../support/proxy.fixture.js';

const RESOURCE = 'http://127.0.0.1:4199/mcp';
const KEY_ENCRYPTION_KEY = 'k'.repeat(43);
/** Where no walk here may ever end: the connect flow redirects to no client. */
const NOWHERE = 'http://127.0.0.1/never';
const SLOW = 120_000;

const OCTOCAT = { id: 583231, login: 'octocat', name: 'The Octocat' };
/** Another person of the same proxy, with her own connection. */
const MONALISA = { id: 1001, login: 'monalisa', name: 'Mona Lisa' };
/** A person with a GitHub account who never signed in to the proxy. */
const HUBOT = { id: 1002, login: 'hubot', name: 'Hubot' };

/**
 * The connect link of a refused token exchange (`interaction_uri`): a one-time, short-lived link that only the user
 * it was issued for can complete, by signing in at GitHub as themselves (MCP 2025-11-25 URL-mode elicitation).
 */
describe('the connect link a refused token exchange answers with', () => {
  let github: GithubFake;
  let app: GithubFakeApp;
  let proxy: ProxyFixture;
  let exchanger: { clientId: string; secret: string };
  /** Octocat's access token from the proxy, for the resource server (the exchange's subject token). */
  let userToken: string;
  let userId: string;
  let monalisaId: string;
  /** The link the refused exchange answered. */
  let link: string;
  /** Tickets issued beside the running proxy, under its key. */
  let tickets: ConnectTickets;

  beforeAll(async () => {
    const port = await freePort();
    github = await startGithubFake({ users: [OCTOCAT, MONALISA, HUBOT] });
    app = github.registerApp({ callbackUrl: proxyCallback(port), kind: 'github-app' });
    proxy = await startProxy({
      port,
      upstream: { issuer: '', clientId: app.clientId, clientSecret: app.clientSecret },
      resource: RESOURCE,
      env: {
        UPSTREAM_PROVIDER: 'github',
        UPSTREAM_BASE_URL: github.baseUrl,
        UPSTREAM_SCOPES: '',
        KEY_ENCRYPTION_KEY,
      },
    });
    tickets = new ConnectTickets(proxy.prisma, repositoryOptions(parseKeyEncryptionKey(KEY_ENCRYPTION_KEY)));
    exchanger = await registerResourceServer(proxy, RESOURCE);
    ({ token: userToken, userId } = await signIn('octocat'));
    ({ userId: monalisaId } = await signIn('monalisa'));
  }, SLOW);
  afterAll(async () => {
    await proxy?.close();
    await github?.close();
  });

  /** `login` signs in to the proxy through GitHub for a client of the resource; their access token and `sub`. */
  async function signIn(login: string): Promise<{ token: string; userId: string }> {
    const client = await proxy.createClient();
    const ua = new HeadlessUserAgent();
    const request = authorizationRequest(proxy, client, RESOURCE);
    const result = await walk(ua, await ua.get(request.url), client.redirectUri, { login });
    const tokens = await redeem(proxy, client, result.stoppedAt!, request, RESOURCE);
    expect(tokens.status).toBe(200);
    const token = String(tokens.body['access_token']);
    return { token, userId: String(decodeJwt(token).sub) };
  }

  const exchange = () => exchangeToken(`${proxy.issuer}/token`, exchanger, { subject_token: userToken });

  const vaultRow = (user = userId) =>
    proxy.prisma.upstreamToken.findUniqueOrThrow({
      where: { userId_connection: { userId: user, connection: 'upstream' } },
    });
  const events = (type: string) => proxy.prisma.securityEvent.findMany({ where: { type } });
  const usedTickets = () => proxy.prisma.usedJwtId.count({ where: { issuer: 'connect-ticket:' } });
  const githubHost = () => new URL(github.baseUrl).host;

  /** Everything a refusal must leave as it was: the rows a sign-in writes, both vault rows, the used tickets. */
  async function snapshot() {
    const { upstreamStates: _states, ...counts } = await proxy.counts();
    return {
      counts,
      octocat: await vaultRow(),
      monalisa: await vaultRow(monalisaId),
      used: await usedTickets(),
    };
  }

  /** Opens `url` in `ua` and presses the page's one button; the redirect upstream. */
  async function reconnect(ua: HeadlessUserAgent, url = link): Promise<UserAgentResponse> {
    const page = await ua.get(url);
    expect(page.status).toBe(200);
    return ua.submit(page.form());
  }

  /** Opens the link in a new browser, presses the button and signs in at GitHub as `login`. */
  async function completeAs(login: string): Promise<Walk> {
    const ua = new HeadlessUserAgent();
    const result = await walk(ua, await reconnect(ua), NOWHERE, { login });
    expect(result.pages).toEqual(['upstream-login', 'upstream-consent', 'other']);
    expect(result.stoppedAt).toBeUndefined();
    expect(result.response.location).toBeUndefined();
    return result;
  }

  it('answers invalid_grant with the user’s connect link once GitHub no longer honours the grant', async () => {
    github.revokeAuthorization(OCTOCAT.id, app.clientId);
    await proxy.prisma.upstreamToken.update({
      where: { userId_connection: { userId, connection: 'upstream' } },
      data: { expiresAt: new Date(Date.now() + 10_000) },
    });
    const refusals = (await events('token_exchange.refused')).length;
    const answer = await exchange();
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: 'invalid_grant' });
    expect(String(answer.body['error_description'])).toContain('connect upstream again');
    expect(answer.body).not.toHaveProperty('access_token');
    link = String(answer.body['interaction_uri']);
    const url = new URL(link);
    expect(`${url.origin}${url.pathname}`).toBe(`${proxy.issuer}/connections/upstream/connect`);
    expect([...url.searchParams.keys()]).toEqual(['ticket']);
    // Sealed: neither the user nor anything else of the proxy's is readable in it.
    expect(link).not.toContain(userId);
    expect((await vaultRow()).reconnectRequiredAt).not.toBeNull();
    const refused = await events('token_exchange.refused');
    expect(refused).toHaveLength(refusals + 1);
    expect(refused.at(-1)).toMatchObject({ userId, clientId: exchanger.clientId });
    // Each refusal hands out a link of its own.
    const again = await exchange();
    expect(again.body['interaction_uri']).toMatch(
      /^http:\/\/localhost:\d+\/connections\/upstream\/connect\?ticket=/,
    );
    expect(again.body['interaction_uri']).not.toBe(link);
  });

  it('shows one button on the link, without script, and stores nothing for opening it', async () => {
    const before = await proxy.counts();
    const page = await new HeadlessUserAgent().get(link);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.body).not.toContain('<script');
    expect(page.body).toContain(`Reconnect ${githubHost()}`);
    expect(page.body).toContain('Notes API');
    const form = page.form();
    expect(form.method).toBe('POST');
    expect(new URL(form.action).pathname).toBe('/connections/upstream/connect');
    expect(form.fields['csrf']?.[0]).toBeTruthy();
    expect(await proxy.counts()).toEqual(before);
  });

  it(
    'refuses a GitHub user who never used the proxy, storing nothing and leaving the link usable',
    async () => {
      const before = await snapshot();
      const failures = (await events('sign_in.failed')).length;
      const result = await completeAs('hubot');
      expect(result.response.status).toBe(403);
      expect(result.response.body).toContain('id="callback-rejected"');
      expect(result.response.body).toContain('someone else');
      // GitHub was asked for a fresh sign-in (its account picker), whatever session it had.
      const authorize = github.requests
        .filter((each) => each.path.startsWith('/login/oauth/authorize?'))
        .at(-1);
      expect(new URL(authorize!.path, github.baseUrl).searchParams.get('prompt')).toBe('select_account');
      expect(await snapshot()).toEqual(before);
      expect(await events('sign_in.failed')).toHaveLength(failures + 1);
      expect((await new HeadlessUserAgent().get(link)).status).toBe(200);
    },
    SLOW,
  );

  it(
    'refuses another user of the proxy, touching neither connection',
    async () => {
      const before = await snapshot();
      const result = await completeAs('monalisa');
      expect(result.response.status).toBe(403);
      expect(result.response.body).toContain('someone else');
      expect(await snapshot()).toEqual(before);
      expect((await new HeadlessUserAgent().get(link)).status).toBe(200);
    },
    SLOW,
  );

  it(
    'connects the user again when they sign in at GitHub as themselves; the next exchange answers a new token',
    async () => {
      // A second browser of the user went upstream too, before the link was used.
      const late = new HeadlessUserAgent();
      const lateRedirect = await reconnect(late);
      expect(lateRedirect.status).toBe(303);
      // And a third one holds the page, not yet submitted.
      const stale = new HeadlessUserAgent();
      const stalePage = await stale.get(link);

      const sessions = (await proxy.counts()).sessions;
      const result = await completeAs('octocat');
      expect(result.response.status).toBe(200);
      expect(result.response.body).toContain('id="connected"');
      expect(result.response.body).toContain('Notes API');
      expect(result.response.body).not.toContain('<script');
      const row = await vaultRow();
      expect(row.reconnectRequiredAt).toBeNull();
      expect(row.accessToken).toMatch(/^v1\./);
      expect(await usedTickets()).toBe(1);
      // No session at the proxy: the link connects, it does not sign anyone in.
      expect((await proxy.counts()).sessions).toBe(sessions);
      const succeeded = (await events('sign_in.succeeded')).at(-1);
      expect(succeeded).toMatchObject({ userId, detail: { page: 'connect', connection: 'upstream' } });

      const answer = await exchange();
      expect(answer.status).toBe(200);
      const token = String(answer.body['access_token']);
      expect(github.issued().has(token)).toBe(true);
      const user = await fetch(`${github.apiUrl}/user`, {
        headers: { authorization: `Bearer ${token}`, 'user-agent': 'test' },
      });
      expect(user.status).toBe(200);
      expect(await user.json()).toMatchObject({ id: OCTOCAT.id, login: 'octocat' });

      // The link is spent: the browser that went upstream before comes back to a refusal, storing nothing ...
      const after = await snapshot();
      const lateWalk = await walk(late, lateRedirect, NOWHERE, { login: 'octocat' });
      expect(lateWalk.response.status).toBe(400);
      expect(lateWalk.response.body).toContain('used already');
      expect(await snapshot()).toEqual(after);
      // ... and the page opened before cannot go upstream any more.
      const states = (await proxy.counts()).upstreamStates;
      const staleSubmit = await stale.submit(stalePage.form());
      expect(staleSubmit.status).toBe(400);
      expect(staleSubmit.location).toBeUndefined();
      expect((await proxy.counts()).upstreamStates).toBe(states);
    },
    SLOW,
  );

  it('refuses the same link a second time', async () => {
    const before = await proxy.counts();
    const page = await new HeadlessUserAgent().get(link);
    expect(page.status).toBe(400);
    expect(page.body).toContain('id="connect-refused"');
    expect(page.body).toContain('used already');
    expect(page.body).not.toContain('<form');
    expect(await proxy.counts()).toEqual(before);
  });

  it.each([
    ['a tampered ticket', () => tamper(link), 'upstream', 'not valid'],
    ['a ticket sealed under another key', () => otherKey(), 'upstream', 'not valid'],
    [
      'an expired ticket',
      () => tickets.issue({ userId, connection: 'upstream' }, Date.now() - 601_000),
      'upstream',
      'expired',
    ],
    [
      'a ticket for another connection',
      () => tickets.issue({ userId, connection: 'gitlab' }),
      'upstream',
      'not valid',
    ],
    [
      'a ticket for an unknown connection, at its path',
      () => tickets.issue({ userId, connection: 'gitlab' }),
      'gitlab',
      'not valid',
    ],
    [
      'a ticket of the path’s connection at another path',
      () => tickets.issue({ userId, connection: 'upstream' }),
      'gitlab',
      'not valid',
    ],
  ])('refuses %s with a 400 page, storing nothing', async (_case, ticket, connection, reason) => {
    const before = await snapshot();
    const states = (await proxy.counts()).upstreamStates;
    const url = `${proxy.issuer}/connections/${connection}/connect?ticket=${encodeURIComponent(ticket())}`;
    const page = await new HeadlessUserAgent().get(url);
    expect(page.status).toBe(400);
    expect(page.body).toContain('id="connect-refused"');
    expect(page.body).toContain(reason);
    expect(page.body).not.toContain('<form');
    expect(page.location).toBeUndefined();
    expect(await snapshot()).toEqual(before);
    expect((await proxy.counts()).upstreamStates).toBe(states);
  });

  it('refuses a link without its ticket, or with two', async () => {
    const before = await proxy.counts();
    const ticket = tickets.issue({ userId, connection: 'upstream' });
    for (const query of ['', `?ticket=${ticket}&ticket=${ticket}`]) {
      const page = await new HeadlessUserAgent().get(`${proxy.issuer}/connections/upstream/connect${query}`);
      expect(page.status).toBe(400);
    }
    expect(await proxy.counts()).toEqual(before);
  });

  it('refuses the button without the page’s CSRF token, or from another browser, sending no one upstream', async () => {
    const before = await snapshot();
    const states = (await proxy.counts()).upstreamStates;
    const fresh = `${proxy.issuer}/connections/upstream/connect?ticket=${tickets.issue({ userId, connection: 'upstream' })}`;
    const ua = new HeadlessUserAgent();
    const form = (await ua.get(fresh)).form();
    const forged = await ua.submit(form, { csrf: 'forged' });
    expect(forged.status).toBe(403);
    expect(forged.location).toBeUndefined();
    // The page's own form, posted by a browser that did not open the page.
    const elsewhere = await new HeadlessUserAgent().submit(form);
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.location).toBeUndefined();
    expect(await snapshot()).toEqual(before);
    expect((await proxy.counts()).upstreamStates).toBe(states);
    // The page's form from the page's browser does go upstream.
    const upstream = await ua.submit(form);
    expect(upstream.status).toBe(303);
    expect(upstream.location?.startsWith(`${github.baseUrl}/login/oauth/authorize?`)).toBe(true);
  });

  /** The same ticket with one character of its sealed body changed. */
  function tamper(url: string): string {
    const ticket = new URL(url).searchParams.get('ticket')!;
    const at = ticket.length - 30;
    return `${ticket.slice(0, at)}${ticket[at] === 'A' ? 'B' : 'A'}${ticket.slice(at + 1)}`;
  }

  /** A well-formed ticket for the user, sealed under a key that is not the proxy's. */
  function otherKey(): string {
    return new ConnectTickets(proxy.prisma, repositoryOptions(parseKeyEncryptionKey('o'.repeat(43)))).issue({
      userId,
      connection: 'upstream',
    });
  }
});
