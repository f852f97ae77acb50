import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { HeadlessUserAgent, launchChromium, recordPageProblems } from '@portcullis/testing';
import type { Browser } from 'playwright-core';
import {
  authorizationRequest,
  authorize,
  redeem,
  RESOURCE,
  settle,
  startAuthorizationServer,
  tokenRequest,
  type AuthorizationServerFixture,
} from '../support/authorization-server.fixture.js';

const TIMEOUT = 60_000;

/**
 * The connected apps page in Chromium (Keycloak's account console "Applications", GitHub's "Authorized OAuth Apps"):
 * a person signs in on it, sees the two clients they approved, revokes one; that client's refresh token stops working
 * and its next authorization asks for consent again, while the other client is untouched. No script, the pages' CSP,
 * and a revoke form without its CSRF token changes nothing.
 */
describe('the connected apps page in Chromium', () => {
  let as: AuthorizationServerFixture;
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchChromium();
    as = await startAuthorizationServer();
  }, TIMEOUT);

  afterAll(async () => {
    await browser?.close();
    await as?.close();
  });

  it(
    'signs in, lists two approved clients, revokes one (its refresh token dies, it must ask again), signs out',
    async () => {
      const user = await as.createUser();
      const notes = await as.createClient({ name: 'Notes Desktop' });
      const agent = await as.createClient({ name: 'Coding Agent' });
      const ua = new HeadlessUserAgent();
      const signedIn = async (client: typeof notes) => {
        const request = authorizationRequest(as, client, { scope: 'notes:read' });
        const tokens = await redeem(as, client, await authorize(ua, request, user, client), request);
        expect(tokens.status).toBe(200);
        return tokens.body['refresh_token'] as string;
      };
      const notesRefresh = await signedIn(notes);
      const agentRefresh = await signedIn(agent);

      const context = await browser.newContext();
      const page = await context.newPage();
      const problems = recordPageProblems(page);
      const signInPage = await page.goto(`${as.app.url}/account`);
      expect(signInPage!.status()).toBe(200);
      expect(await signInPage!.headerValue('content-security-policy')).toContain("frame-ancestors 'none'");
      await page.fill('#username', user.username);
      await page.fill('#password', user.password);
      await page.click('button[type=submit]');
      // The same URL, now the list: wait for it rather than for the URL.
      await page.locator('h1', { hasText: 'Connected apps' }).waitFor();
      const listed = await page.locator('section.app h2').allTextContents();
      expect(listed.sort()).toEqual(['Coding Agent', 'Notes Desktop']);
      expect(await page.locator(`section[data-client-id="${agent.clientId}"] dd`).allTextContents()).toEqual(
        expect.arrayContaining(['registered by the operator']),
      );

      await page.click(`section[data-client-id="${agent.clientId}"] button[value=revoke]`);
      await page.waitForURL(/\/account\?revoked=1$/);
      expect(await page.locator('#revoked').textContent()).toContain('Access revoked');
      expect(await page.locator('section.app h2').allTextContents()).toEqual(['Notes Desktop']);
      // The notice is fixed text: a link cannot put its own words on the page.
      await page.goto(`${as.app.url}/account?revoked=Your+account+is+locked`);
      expect(await page.locator('body').textContent()).not.toContain('locked');
      // Signing out ends the page's session in the database (a copied cookie is dead too), not just in the browser.
      const cookie = (await context.cookies()).find((c) => c.name.startsWith('portcullis-session'));
      await page.click('#sign-out');
      await page.locator('h1', { hasText: 'Sign in' }).waitFor();
      expect(
        await as.prisma.loginSession.count({ where: { userId: user.id, revokedAt: { not: null } } }),
      ).toBe(1);
      const replayed = await fetch(`${as.app.url}/account`, {
        headers: { cookie: `${cookie!.name}=${cookie!.value}` },
      });
      expect(await replayed.text()).toContain('id="username"');
      expect(problems).toEqual([]);
      await context.close();

      // The revoked client's refresh token is dead; the other client's still works.
      const refresh = (clientId: string, token: string) =>
        tokenRequest(as, { grant_type: 'refresh_token', refresh_token: token, client_id: clientId });
      expect((await refresh(agent.clientId, agentRefresh)).body['error']).toBe('invalid_grant');
      expect((await refresh(notes.clientId, notesRefresh)).status).toBe(200);
      // Its next authorization, with the session still there, asks for consent again.
      const again = authorizationRequest(as, agent, { scope: 'notes:read' });
      const step = await settle(ua, await ua.get(again.url), (url) => url.startsWith(agent.redirectUri));
      expect(step.stoppedAt).toBeUndefined();
      expect(new URL(step.response.url).pathname).toBe('/consent');
      // And the revocation is a security event.
      expect(
        await as.prisma.securityEvent.count({
          where: { type: 'consent.revoked', userId: user.id, clientId: agent.clientId },
        }),
      ).toBe(1);
    },
    TIMEOUT,
  );

  it('changes nothing for a revoke form without its CSRF token', async () => {
    const user = await as.createUser();
    const client = await as.createClient({ name: 'Kept' });
    const ua = new HeadlessUserAgent();
    const request = authorizationRequest(as, client, { scope: 'notes:read' });
    expect((await redeem(as, client, await authorize(ua, request, user, client), request)).status).toBe(200);
    // The browser's own session cookie, but a token the page never gave (a cross-site form would have none).
    const forged = await fetch(`${as.app.url}/account/revoke`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        cookie: ua.cookieJar.cookieHeader(`${as.app.url}/account`) ?? '',
      },
      body: new URLSearchParams({ client_id: client.clientId, csrf: 'forged' }).toString(),
    });
    expect(forged.status).toBe(403);
    expect(forged.headers.get('location')).toBeNull();
    expect(await as.prisma.consent.count({ where: { userId: user.id, clientId: client.clientId } })).toBe(1);
    expect(
      await as.prisma.authorizationGrant.count({
        where: { userId: user.id, clientId: client.clientId, revokedAt: { not: null } },
      }),
    ).toBe(0);
  });

  it("revokes only what the signed-in person approved: another person's consent to the same client is untouched", async () => {
    const alice = await as.createUser();
    const bob = await as.createUser();
    const client = await as.createClient({ name: 'Shared' });
    const sign = async (user: typeof alice) => {
      const ua = new HeadlessUserAgent();
      const request = authorizationRequest(as, client, { scope: 'notes:read' });
      expect((await redeem(as, client, await authorize(ua, request, user, client), request)).status).toBe(
        200,
      );
      return ua;
    };
    const aliceBrowser = await sign(alice);
    await sign(bob);
    await as.prisma.consent.deleteMany({ where: { userId: alice.id } });
    // Alice's own page (her session, her CSRF token) posting Bob's client: nothing of Bob's changes.
    const page = await aliceBrowser.get(`${as.app.url}/account`);
    const signOut = page.form({ action: '/account/logout' });
    const posted = await aliceBrowser.submit(
      { ...signOut, action: `${as.app.url}/account/revoke` },
      { client_id: client.clientId, resource: RESOURCE },
      { allowUnknownFields: true },
    );
    expect(posted.status).toBe(303);
    expect(posted.location).toBe(`${as.app.url}/account`);
    expect(await as.prisma.consent.count({ where: { userId: bob.id, clientId: client.clientId } })).toBe(1);
    expect(
      await as.prisma.authorizationGrant.count({ where: { userId: bob.id, revokedAt: { not: null } } }),
    ).toBe(0);
    expect(
      await as.prisma.securityEvent.count({ where: { type: 'consent.revoked', clientId: client.clientId } }),
    ).toBe(0);
  });
});
