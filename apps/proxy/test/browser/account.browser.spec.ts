import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { freePort, HeadlessUserAgent, launchChromium, recordPageProblems } from '@portcullis/testing';
import type { Browser, Page } from 'playwright-core';
import { walk } from '../support/person.js';
import {
  authorizationRequest,
  proxyCallback,
  redeem,
  startProxy,
  type ProxyFixture,
  type TestClient,
} from '../support/proxy.fixture.js';
import { startUpstream, type UpstreamFixture } from '../support/upstream.fixture.js';

const RESOURCE = 'http://127.0.0.1:4199/mcp';
const TIMEOUT = 60_000;

/**
 * The proxy's connected apps page in Chromium: the person signs in to it at the upstream (the same upstream identity
 * as their authorizations, so the same local user), sees the two clients they approved at the proxy, revokes one:
 * its refresh token stops working and its next authorization asks for consent again; the other is untouched. Under
 * "Connected accounts" the page lists the upstream account they signed in with (its tokens in the vault), which they
 * disconnect: its row is deleted.
 */
describe("the proxy's connected apps page in Chromium", () => {
  let upstream: UpstreamFixture;
  let proxy: ProxyFixture;
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchChromium();
    const port = await freePort();
    upstream = await startUpstream({ redirectUri: proxyCallback(port) });
    proxy = await startProxy({ port, upstream, resource: RESOURCE });
  }, TIMEOUT);

  afterAll(async () => {
    await browser?.close();
    await proxy?.close();
    await upstream?.close();
  });

  /** A flow of `client` through the proxy and the upstream as `login`; its refresh token. */
  async function approved(ua: HeadlessUserAgent, client: TestClient, login: string): Promise<string> {
    const request = authorizationRequest(proxy, client, RESOURCE);
    const result = await walk(ua, await ua.get(request.url), client.redirectUri, { login });
    const tokens = await redeem(proxy, client, result.stoppedAt!, request, RESOURCE);
    expect(tokens.status).toBe(200);
    return tokens.body['refresh_token'] as string;
  }

  /** Answers the upstream's development sign-in and consent pages until the browser is back at the proxy. */
  async function signInUpstream(page: Page, login: string): Promise<void> {
    for (let step = 0; step < 5 && !page.url().startsWith(proxy.issuer); step++) {
      const loginField = page.locator('input[name=login]');
      if ((await loginField.count()) > 0) {
        await loginField.fill(login);
        await page.locator('input[name=password]').fill('anything');
      }
      await Promise.all([page.waitForNavigation(), page.locator('button[type=submit]').first().click()]);
    }
  }

  it(
    'signs in upstream, lists two approved clients, revokes one (its refresh token dies, it must ask again)',
    async () => {
      const notes = await proxy.createClient({ name: 'Notes Desktop' });
      const agent = await proxy.createClient({ name: 'Coding Agent' });
      const ua = new HeadlessUserAgent();
      const notesRefresh = await approved(ua, notes, 'carol');
      const agentRefresh = await approved(ua, agent, 'carol');

      const context = await browser.newContext();
      const page = await context.newPage();
      const signIn = await page.goto(`${proxy.issuer}/account`);
      expect(signIn!.status()).toBe(200);
      expect(await signIn!.headerValue('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(await page.locator('#sign-in-upstream').textContent()).toContain(new URL(upstream.issuer).host);
      await Promise.all([page.waitForNavigation(), page.click('#sign-in-upstream')]);
      expect(page.url().startsWith(upstream.issuer)).toBe(true);
      await signInUpstream(page, 'carol');
      expect(new URL(page.url()).pathname).toBe('/account');
      // From here on, only the proxy's own pages: none may report a problem.
      const problems = recordPageProblems(page);
      await page.reload();
      await page.locator('h1', { hasText: 'Connected apps' }).waitFor();
      expect((await page.locator('section.app h2').allTextContents()).sort()).toEqual([
        'Coding Agent',
        'Notes Desktop',
      ]);

      await page.click(`section[data-client-id="${agent.clientId}"] button[value=revoke]`);
      await page.waitForURL(/\/account\?revoked=1$/);
      expect(await page.locator('#revoked').textContent()).toContain('Access revoked');
      expect(await page.locator('section.app h2').allTextContents()).toEqual(['Notes Desktop']);
      expect(problems).toEqual([]);
      await context.close();

      const refresh = (clientId: string, token: string) =>
        fetch(`${proxy.issuer}/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            grant_type: 'refresh_token',
            refresh_token: token,
            client_id: clientId,
          }),
        });
      const dead = await refresh(agent.clientId, agentRefresh);
      expect(dead.status).toBe(400);
      expect(((await dead.json()) as { error: string }).error).toBe('invalid_grant');
      expect((await refresh(notes.clientId, notesRefresh)).status).toBe(200);
      // The revoked client's next authorization in the same browser (signed in at the proxy) asks again.
      const again = authorizationRequest(proxy, agent, RESOURCE);
      const result = await walk(ua, await ua.get(again.url), agent.redirectUri, { consent: 'leave' });
      expect(result.pages).toEqual(['session-consent']);
      expect(
        await proxy.prisma.securityEvent.count({
          where: { type: 'consent.revoked', clientId: agent.clientId },
        }),
      ).toBe(1);
    },
    TIMEOUT,
  );

  it(
    'lists the upstream account the person signed in with under Connected accounts, and disconnects it',
    async () => {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(`${proxy.issuer}/account`);
      await Promise.all([page.waitForNavigation(), page.click('#sign-in-upstream')]);
      await signInUpstream(page, 'dave');
      expect(new URL(page.url()).pathname).toBe('/account');
      const problems = recordPageProblems(page);
      await page.reload();
      const { userId } = await proxy.prisma.upstreamIdentity.findFirstOrThrow({ where: { subject: 'dave' } });
      const row = await proxy.prisma.upstreamToken.findUniqueOrThrow({
        where: { userId_connection: { userId, connection: 'upstream' } },
      });

      const section = page.locator('section[data-section="connections"]');
      await section.locator('h2', { hasText: 'Connected accounts' }).waitFor();
      const entry = section.locator('div.connection[data-connection="upstream"]');
      expect(await section.locator('div.connection').count()).toBe(1);
      expect(await entry.locator('h3').textContent()).toBe(`upstream at ${new URL(upstream.issuer).host}`);
      // Scopes, last used, state.
      expect(await entry.locator('dd').allTextContents()).toEqual([
        row.scopes.join(' '),
        'never',
        'Connected',
      ]);
      expect(row.scopes).toContain('openid');
      expect(await entry.locator('p.hint').textContent()).toContain('you can still sign in');

      await entry.locator('button[value=disconnect]').click();
      await page.waitForURL(/\/account\?connections=disconnected$/);
      expect(await page.locator('#connections-notice').textContent()).toContain('Disconnected.');
      // The sign-in provider is now offered to connect again, with no Disconnect.
      expect(await section.locator('div.connection').count()).toBe(1);
      expect(await entry.locator('.connection-state').textContent()).toContain('Not connected');
      expect(await entry.locator('button[value=disconnect]').count()).toBe(0);
      await entry.locator('button[value=connect]').waitFor();
      expect(problems).toEqual([]);
      await context.close();

      expect(await proxy.prisma.upstreamToken.count({ where: { userId } })).toBe(0);
      const removed = await proxy.prisma.securityEvent.findMany({
        where: { type: 'upstream_connection.removed', userId },
      });
      expect(removed.map((event) => event.detail)).toEqual([
        // oidc-provider publishes a revocation endpoint: the refresh and access tokens were revoked there (RFC 7009).
        { connection: 'upstream', upstream: row.issuer, by: 'user', revoked: 'revoked' },
      ]);
    },
    TIMEOUT,
  );

  it('goes upstream only for a sign-in form with its CSRF token, storing nothing otherwise', async () => {
    const ua = new HeadlessUserAgent();
    const page = await ua.get(`${proxy.issuer}/account`);
    const form = page.form();
    const before = await proxy.counts();
    const upstreamRequests = upstream.exchanges.length;
    const forged = await ua.submit(form, { csrf: 'forged' });
    expect(forged.status).toBe(403);
    expect(forged.location).toBeUndefined();
    // From a browser that never saw the page (a cross-site form): the same.
    const stranger = await new HeadlessUserAgent().submit(form);
    expect(stranger.status).toBe(403);
    expect(await proxy.counts()).toEqual(before);
    expect(upstream.exchanges).toHaveLength(upstreamRequests);

    const sent = await ua.submit(form);
    expect(sent.status).toBe(303);
    expect(sent.location).toMatch(new RegExp(`^${upstream.issuer}/auth\\?`));
    expect(await proxy.prisma.upstreamState.count({ where: { purpose: 'account' } })).toBeGreaterThan(0);
  });
});
