import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  launchChromium,
  recordPageProblems,
  startLoopbackServer,
  type LoopbackServer,
} from '@portcullis/testing';
import type { Browser } from 'playwright-core';
import {
  authorizationRequest,
  redeem,
  startAuthorizationServer,
  type AuthorizationServerFixture,
  type TestClient,
} from '../support/authorization-server.fixture.js';

/** Launching Chromium, booting the server and its database: more than Jest's default allows. */
const TIMEOUT = 60_000;

/**
 * The login and consent pages in a real browser: what the headless user-agent cannot see is whether Chromium
 * applies the pages' Content Security Policy without blocking anything they use (the inline stylesheet is
 * allowed by its sha256 hash), and whether the forms, cookies and the 303 to a native client's loopback
 * redirect URI (RFC 8252 7.3: any port) work as a browser runs them.
 */
describe('login and consent in Chromium', () => {
  let as: AuthorizationServerFixture;
  let browser: Browser;
  let nativeApp: LoopbackServer;
  let received: ((url: URL) => void) | undefined;

  /** The next request the native app receives at its callback. */
  function nextCallback(): Promise<URL> {
    return new Promise((resolve) => (received = resolve));
  }

  beforeAll(async () => {
    nativeApp = await startLoopbackServer((request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end('done');
      if (request.path.startsWith('/callback')) received?.(new URL(request.path, nativeApp.url));
    });
    // The browser first: when it is missing the suite fails at once, with nothing else started to leak.
    browser = await launchChromium();
    as = await startAuthorizationServer();
  }, TIMEOUT);

  afterAll(async () => {
    await browser?.close();
    await nativeApp?.close();
    await as?.close();
  });

  it(
    'signs in and approves on the real pages, lands on the loopback callback with code, state and iss, and no CSP violation is reported',
    async () => {
      const registered = await as.createClient({
        name: 'Notes <Desktop> & Co',
        redirectUris: ['http://127.0.0.1/callback'],
      });
      // The native app listens on a port of its own choosing; the registered loopback URI has none.
      const client: TestClient = { ...registered, redirectUri: `${nativeApp.url}/callback` };
      const user = await as.createUser();
      const request = authorizationRequest(as, client, { scope: 'openid notes:read' });

      const context = await browser.newContext();
      const page = await context.newPage();
      const problems = recordPageProblems(page);

      const login = await page.goto(request.url);
      expect(login).not.toBeNull();
      expect(new URL(page.url()).pathname).toBe('/login');
      expect(login!.status()).toBe(200);
      expect(await login!.headerValue('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(await login!.headerValue('x-frame-options')).toBe('DENY');
      // The stylesheet applied: the hash in the CSP matches the inline <style> as Chromium parsed it.
      // (A string, because this project compiles without the DOM library.)
      expect(await page.evaluate<string>('getComputedStyle(document.body).backgroundColor')).toBe(
        'rgb(244, 245, 247)',
      );
      await expect(page.locator('main strong').textContent()).resolves.toBe('Notes <Desktop> & Co');

      await page.locator('input[name="username"]').fill(user.username);
      await page.locator('input[name="password"]').fill(user.password);
      await Promise.all([
        page.waitForURL((url) => url.pathname === '/consent'),
        page.getByRole('button', { name: 'Sign in' }).click(),
      ]);

      await expect(page.locator('h1 strong').textContent()).resolves.toBe('Notes <Desktop> & Co');
      const scopes = page.locator('input[type="checkbox"][name="scope"]');
      const shown = [];
      for (const box of await scopes.all()) shown.push([await box.inputValue(), await box.isChecked()]);
      expect(shown).toEqual([
        ['openid', true],
        ['notes:read', true],
      ]);
      await expect(page.locator('ul.scopes').textContent()).resolves.toContain('Know who you are');

      const [callback] = await Promise.all([
        nextCallback(),
        page.getByRole('button', { name: 'Allow' }).click(),
      ]);
      await page.waitForURL((url) => url.href === callback.href);

      expect(callback.origin + callback.pathname).toBe(client.redirectUri);
      expect(callback.searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(callback.searchParams.get('state')).toBe(request.state);
      expect(callback.searchParams.get('iss')).toBe(as.issuer);
      expect(page.url()).toBe(callback.href);
      await expect(page.locator('body').textContent()).resolves.toBe('done');
      // `Referrer-Policy: no-referrer` holds across the 303: the client learns nothing of the consent page's URL.
      const callbacks = nativeApp.requests.filter((received) => received.path.startsWith('/callback'));
      expect(callbacks).toHaveLength(1);
      expect(callbacks[0]!.method).toBe('GET');
      expect(callbacks[0]!.headers.referer).toBeUndefined();

      expect(problems).toEqual([]);
      await context.close();

      const token = await redeem(as, client, callback, request);
      expect(token.status).toBe(200);
      expect(token.body).toMatchObject({ token_type: 'Bearer', scope: 'openid notes:read' });
    },
    TIMEOUT,
  );

  it(
    'asks one click before a code goes to an approved loopback client again, on a page that runs under its CSP',
    async () => {
      const registered = await as.createClient({
        name: 'Notes CLI',
        redirectUris: ['http://127.0.0.1/callback'],
      });
      const client: TestClient = { ...registered, redirectUri: `${nativeApp.url}/callback` };
      const user = await as.createUser();
      const context = await browser.newContext();
      const page = await context.newPage();
      const problems = recordPageProblems(page);

      await page.goto(authorizationRequest(as, client).url);
      await page.locator('input[name="username"]').fill(user.username);
      await page.locator('input[name="password"]').fill(user.password);
      await Promise.all([
        page.waitForURL((url) => url.pathname === '/consent'),
        page.getByRole('button', { name: 'Sign in' }).click(),
      ]);
      await Promise.all([nextCallback(), page.getByRole('button', { name: 'Allow' }).click()]);

      // Signed in and approved: the next request stops on the confirmation, not on the callback.
      const again = authorizationRequest(as, client);
      const codesBefore = await as.counts();
      const confirmation = await page.goto(again.url);
      expect(new URL(page.url()).pathname).toBe('/continue');
      expect(confirmation!.status()).toBe(200);
      expect(await as.counts()).toEqual(codesBefore);
      await expect(page.locator('h1 strong').textContent()).resolves.toBe('Notes CLI');
      const [callback] = await Promise.all([
        nextCallback(),
        page.getByRole('button', { name: 'Continue' }).click(),
      ]);
      expect(callback.searchParams.get('state')).toBe(again.state);
      expect(callback.searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);

      expect(problems).toEqual([]);
      await context.close();
    },
    TIMEOUT,
  );
});
