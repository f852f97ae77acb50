import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { parseKeyEncryptionKey } from '@portcullis/authorization';
import {
  freePort,
  HeadlessUserAgent,
  startGithubFake,
  type GithubFake,
  type UserAgentResponse,
} from '@portcullis/testing';
import { decodeJwt } from 'jose';
import { UpstreamTokens } from '../../src/upstream/upstream-token.repository.js';
import { walk } from '../support/person.js';
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
const SLOW = 120_000;

const OCTOCAT = { id: 583231, login: 'octocat', name: 'The Octocat' };
/** Another person of the same proxy, with connections of her own. */
const MONALISA = { id: 1001, login: 'monalisa', name: 'Mona Lisa' };

/**
 * "Connected accounts" on the proxy's account page, without a browser: it lists the signed-in person's connections in
 * the token vault, and Disconnect deletes one of theirs (the next token exchange for it is refused) and nothing else;
 * a form without its CSRF token or session, or naming a connection the person does not have, deletes nothing.
 */
describe('the connected accounts of the proxy’s account page', () => {
  let github: GithubFake;
  let proxy: ProxyFixture;
  let exchanger: { clientId: string; secret: string };
  let octocat: { token: string; userId: string };
  let monalisa: { token: string; userId: string };
  /** Octocat's browser, signed in on the account page. */
  let octocatBrowser: HeadlessUserAgent;
  let monalisaBrowser: HeadlessUserAgent;

  beforeAll(async () => {
    const port = await freePort();
    github = await startGithubFake({ users: [OCTOCAT, MONALISA] });
    const app = github.registerApp({ callbackUrl: proxyCallback(port), kind: 'github-app' });
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
    exchanger = await registerResourceServer(proxy, RESOURCE);
    octocat = await authorize('octocat');
    monalisa = await authorize('monalisa');
    // A connection of each beside the sign-in provider's, as a connect would store it.
    const vault = new UpstreamTokens(
      proxy.prisma,
      repositoryOptions(parseKeyEncryptionKey(KEY_ENCRYPTION_KEY)),
    );
    await vault.store(octocat.userId, 'notes-api', 'https://notes.example/', {
      accessToken: 'notes-access',
      scopes: ['notes.read', 'notes.write'],
    });
    await vault.store(monalisa.userId, 'calendar', 'https://calendar.example/', {
      accessToken: 'calendar-access',
      scopes: ['calendar'],
    });
    octocatBrowser = await signInToAccount('octocat');
    monalisaBrowser = await signInToAccount('monalisa');
  }, SLOW);
  afterAll(async () => {
    await proxy?.close();
    await github?.close();
  });

  /** `login` authorizes an MCP client of the resource through GitHub; their access token (the subject token). */
  async function authorize(login: string): Promise<{ token: string; userId: string }> {
    const client = await proxy.createClient();
    const ua = new HeadlessUserAgent();
    const request = authorizationRequest(proxy, client, RESOURCE);
    const result = await walk(ua, await ua.get(request.url), client.redirectUri, { login });
    const tokens = await redeem(proxy, client, result.stoppedAt!, request, RESOURCE);
    expect(tokens.status).toBe(200);
    const token = String(tokens.body['access_token']);
    return { token, userId: String(decodeJwt(token).sub) };
  }

  /** A new browser that signs in to the account page at GitHub as `login`. */
  async function signInToAccount(login: string): Promise<HeadlessUserAgent> {
    const ua = new HeadlessUserAgent();
    const signIn = await ua.get(`${proxy.issuer}/account`);
    const result = await walk(ua, await ua.submit(signIn.form()), `${proxy.issuer}/account`, { login });
    expect(result.stoppedAt?.href).toBe(`${proxy.issuer}/account`);
    return ua;
  }

  async function accountPage(ua: HeadlessUserAgent): Promise<UserAgentResponse> {
    const page = await ua.get(`${proxy.issuer}/account`);
    expect(page.status).toBe(200);
    expect(page.body).toContain('<h2>Connected accounts</h2>');
    return page;
  }

  /** The Disconnect form of `connection` on `page`. */
  function disconnectForm(page: UserAgentResponse, connection: string) {
    const form = page
      .forms()
      .find(
        (each) =>
          each.action === `${proxy.issuer}/account/connections/disconnect` &&
          each.fields['connection']?.[0] === connection,
      );
    if (!form) throw new Error(`no Disconnect form for ${connection}`);
    return form;
  }

  /** The HTML of `connection`'s entry on `page`. */
  function entry(page: UserAgentResponse, connection: string): string | undefined {
    return new RegExp(`<div class="connection" data-connection="${connection}">([\\s\\S]*?)</div>`).exec(
      page.body,
    )?.[1];
  }

  const exchange = (subjectToken: string) =>
    exchangeToken(`${proxy.issuer}/token`, exchanger, { subject_token: subjectToken });

  /** Every vault row (tokens included) and every removal recorded: what a refusal must leave as it was. */
  async function snapshot() {
    return {
      rows: await proxy.prisma.upstreamToken.findMany({
        orderBy: [{ userId: 'asc' }, { connection: 'asc' }],
      }),
      removed: await proxy.prisma.securityEvent.count({ where: { type: 'upstream_connection.removed' } }),
    };
  }

  it('lists the person’s own connections: name and provider, scopes, last use, state, and Disconnect', async () => {
    // Octocat's GitHub connection has served one exchange; the other needs reconnecting.
    expect((await exchange(octocat.token)).status).toBe(200);
    const lost = new Date('2026-01-31T09:15:02.000Z');
    await proxy.prisma.upstreamToken.update({
      where: { userId_connection: { userId: octocat.userId, connection: 'notes-api' } },
      data: { accessToken: null, reconnectRequiredAt: lost },
    });
    const githubRow = await proxy.prisma.upstreamToken.findUniqueOrThrow({
      where: { userId_connection: { userId: octocat.userId, connection: 'upstream' } },
    });

    const page = await accountPage(octocatBrowser);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page.body).not.toContain('<script');
    const upstream = entry(page, 'upstream')!;
    expect(upstream).toContain(`<code>upstream</code> at ${new URL(githubRow.issuer).host}`);
    expect(upstream).toContain('<dt>Last used</dt><dd>20');
    expect(upstream).toContain('<dd class="connection-state">Connected</dd>');
    expect(upstream).toContain('you can still sign in');
    const notes = entry(page, 'notes-api')!;
    expect(notes).toContain('<code>notes-api</code> at notes.example');
    expect(notes).toContain('<code>notes.read</code> <code>notes.write</code>');
    expect(notes).toContain('<dt>Last used</dt><dd>never</dd>');
    expect(notes).toContain(
      'Needs reconnecting</strong>: the provider stopped honouring it on 2026-01-31 09:15:02 UTC',
    );
    expect(notes).not.toContain('you can still sign in');
    // The sign-in provider's first; Monalisa's connection is not on Octocat's page.
    expect(page.body.indexOf('data-connection="upstream"')).toBeLessThan(
      page.body.indexOf('data-connection="notes-api"'),
    );
    expect(page.body).not.toContain('calendar');
    for (const connection of ['upstream', 'notes-api']) {
      const form = disconnectForm(page, connection);
      expect(form.method).toBe('POST');
      expect(form.fields['csrf']?.[0]).toBeTruthy();
    }
    expect(entry(await accountPage(monalisaBrowser), 'calendar')).toContain('calendar.example');
  });

  it('deletes nothing for a form with a forged, missing or another session’s CSRF token, or without a session', async () => {
    const form = disconnectForm(await accountPage(octocatBrowser), 'upstream');
    const before = await snapshot();
    const attempts = [
      await octocatBrowser.submit(form, { csrf: 'forged' }),
      await octocatBrowser.submit(form, { csrf: null }),
      // Octocat's page, posted from Monalisa's browser: her session, his token.
      await monalisaBrowser.submit(form),
      // From a browser without a session (a cross-site form).
      await new HeadlessUserAgent().submit(form),
      // A field with a control character.
      await octocatBrowser.submit(form, { connection: 'upstream\u0000' }),
    ];
    for (const refused of attempts) {
      expect(refused.status).toBe(403);
      expect(refused.location).toBeUndefined();
      expect(refused.body).toContain('id="refused"');
    }
    // An action the section does not have is not found, whatever the form.
    const unknown = await octocatBrowser.submit({
      ...form,
      action: `${proxy.issuer}/account/connections/remove`,
    });
    expect(unknown.status).toBe(404);
    expect(await snapshot()).toEqual(before);
  });

  it.each([
    ['a connection nobody has', 'gitlab'],
    ['a connection only another person has', 'calendar'],
  ])('deletes nothing for %s, and says so', async (_case, connection) => {
    const form = disconnectForm(await accountPage(octocatBrowser), 'upstream');
    const before = await snapshot();
    const answer = await octocatBrowser.submit(form, { connection });
    expect(answer.status).toBe(303);
    expect(answer.location).toBe(`${proxy.issuer}/account?connections=not-connected`);
    const page = await octocatBrowser.follow(answer);
    expect(page.status).toBe(200);
    expect(page.body).toContain('id="connections-notice"');
    expect(page.body).toContain('nothing was disconnected');
    expect(await snapshot()).toEqual(before);
  });

  it.each(['your-account-is-locked', 'constructor', 'Your+account+is+locked'])(
    'writes only its own fixed notices, never text from the URL (%s)',
    async (notice) => {
      const page = await octocatBrowser.get(`${proxy.issuer}/account?connections=${notice}`);
      expect(page.status).toBe(200);
      expect(page.body).not.toContain('connections-notice');
      expect(page.body).not.toContain('locked');
    },
  );

  it(
    'disconnects GitHub for Octocat alone: his exchange is refused, hers still answers, he still signs in',
    async () => {
      const before = await snapshot();
      const answer = await octocatBrowser.submit(
        disconnectForm(await accountPage(octocatBrowser), 'upstream'),
      );
      expect(answer.status).toBe(303);
      expect(answer.location).toBe(`${proxy.issuer}/account?connections=disconnected`);
      const page = await octocatBrowser.follow(answer);
      expect(page.body).toContain('id="connections-notice"');
      expect(page.body).toContain('Disconnected.');
      // GitHub is now offered to connect, with no Disconnect; notes-api is untouched.
      expect(entry(page, 'upstream')).toContain('Not connected');
      expect(entry(page, 'upstream')).toContain('value="connect"');
      expect(entry(page, 'upstream')).not.toContain('value="disconnect"');
      expect(entry(page, 'notes-api')).toContain('value="disconnect"');

      // Exactly Octocat's GitHub row is gone.
      const after = await snapshot();
      expect(after.rows).toEqual(
        before.rows.filter((row) => !(row.userId === octocat.userId && row.connection === 'upstream')),
      );
      expect(after.rows).toHaveLength(before.rows.length - 1);
      const removed = await proxy.prisma.securityEvent.findMany({
        where: { type: 'upstream_connection.removed' },
      });
      expect(removed).toHaveLength(1);
      expect(removed[0]).toMatchObject({
        userId: octocat.userId,
        detail: { connection: 'upstream', by: 'user' },
      });

      // The vault has no GitHub connection for him: the exchange is refused, issuing nothing.
      const refused = await exchange(octocat.token);
      expect(refused.status).toBe(400);
      expect(refused.body['error']).toBe('invalid_grant');
      expect(refused.body).not.toHaveProperty('access_token');
      expect((await exchange(monalisa.token)).status).toBe(200);

      // Disconnecting it again finds nothing.
      const again = await octocatBrowser.submit(disconnectForm(page, 'notes-api'), {
        connection: 'upstream',
      });
      expect(again.location).toBe(`${proxy.issuer}/account?connections=not-connected`);

      // He can still sign in with GitHub, which keeps his tokens again: the exchange answers once more.
      await signInToAccount('octocat');
      const row = await proxy.prisma.upstreamToken.findUniqueOrThrow({
        where: { userId_connection: { userId: octocat.userId, connection: 'upstream' } },
      });
      expect(row.accessToken).toMatch(/^v1\./);
      expect((await exchange(octocat.token)).status).toBe(200);
    },
    SLOW,
  );
});
