import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { freePort, HeadlessUserAgent, type UserAgentResponse } from '@portcullis/testing';
import { consentCookieName } from '../../src/consent/consent-cookie.js';
import { walk } from '../support/person.js';
import {
  authorizationRequest,
  proxyCallback,
  startProxy,
  type ProxyFixture,
  type TestClient,
} from '../support/proxy.fixture.js';
import { startUpstream, type UpstreamFixture } from '../support/upstream.fixture.js';

const RESOURCE = 'http://127.0.0.1:4199/mcp';

describe("the proxy's consent page", () => {
  let upstream: UpstreamFixture;
  let proxy: ProxyFixture;
  let client: TestClient;

  beforeAll(async () => {
    const port = await freePort();
    upstream = await startUpstream({ redirectUri: proxyCallback(port) });
    proxy = await startProxy({ port, upstream, resource: RESOURCE });
    client = await proxy.createClient({ name: 'Notes CLI' });
  });
  afterAll(async () => {
    await proxy?.close();
    await upstream?.close();
  });

  /** A fresh browser on the consent page of a new request for `forClient`. */
  async function consentPage(
    forClient = client,
    ua = new HeadlessUserAgent(),
  ): Promise<{ ua: HeadlessUserAgent; page: UserAgentResponse }> {
    const result = await walk(
      ua,
      await ua.get(authorizationRequest(proxy, forClient, RESOURCE).url),
      forClient.redirectUri,
      {
        consent: 'leave',
      },
    );
    expect(result.pages).toEqual(['proxy-consent']);
    return { ua, page: result.response };
  }

  /** Runs `act` and checks that it wrote nothing, went nowhere upstream, and redirected nobody. */
  async function expectNothingPersisted(act: () => Promise<UserAgentResponse>): Promise<UserAgentResponse> {
    const before = await proxy.counts();
    const upstreamRequests = upstream.exchanges.length;
    const response = await act();
    expect(response.location).toBeUndefined();
    expect(await proxy.counts()).toEqual(before);
    expect(upstream.exchanges).toHaveLength(upstreamRequests);
    return response;
  }

  const approve = { button: { name: 'decision', value: 'approve' } };

  it('refuses a consent POST without the CSRF token, writing nothing and going nowhere', async () => {
    const { ua, page } = await consentPage();
    const response = await expectNothingPersisted(() => ua.submit(page.form(), { csrf: '' }, approve));
    expect(response.status).toBe(403);
  });

  it("refuses a consent POST carrying another browser's CSRF token", async () => {
    const victim = await consentPage();
    const attacker = await consentPage();
    const forged = await expectNothingPersisted(() =>
      victim.ua.submit(victim.page.form(), { csrf: attacker.page.form().fields['csrf']![0]! }, approve),
    );
    expect(forged.status).toBe(403);
    // The attacker's whole form (its request, its token) posted from the victim's browser: refused as well.
    const swapped = await expectNothingPersisted(() => victim.ua.submit(attacker.page.form(), {}, approve));
    expect(swapped.status).toBe(403);
    // And from a browser that never saw the page.
    const stranger = await expectNothingPersisted(() =>
      new HeadlessUserAgent().submit(victim.page.form(), {}, approve),
    );
    expect(stranger.status).toBe(403);
  });

  it('answers an approval with 303 to the upstream, and forbids framing and scripts on the page', async () => {
    const { ua, page } = await consentPage();
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("default-src 'none'");
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.body).not.toMatch(/<script|<link|src=/i);
    for (const shown of ['Notes CLI', '127.0.0.1', RESOURCE, 'notes:read', new URL(upstream.issuer).host]) {
      expect(page.body).toContain(shown);
    }
    const approved = await ua.submit(page.form(), {}, approve);
    expect(approved.status).toBe(303);
    expect(approved.location).toMatch(new RegExp(`^${upstream.issuer}/auth\\?`));
    const upstreamRequest = new URL(approved.location!).searchParams;
    expect(upstreamRequest.get('client_id')).toBe(upstream.clientId);
    expect(upstreamRequest.get('code_challenge_method')).toBe('S256');
    expect(upstreamRequest.get('redirect_uri')).toBe(`${proxy.issuer}/upstream/callback`);
    expect(upstreamRequest.get('nonce')).toBeTruthy();
    // The state upstream is a fresh value, not the client's.
    expect(upstreamRequest.get('state')).not.toBe(new URL(page.url).searchParams.get('state'));
    expect(await proxy.prisma.upstreamState.count({ where: { clientId: client.clientId } })).toBeGreaterThan(
      0,
    );
  });

  it('lets the consent cookie skip the page for the same client, and never for another one', async () => {
    const ua = new HeadlessUserAgent();
    const first = await walk(
      ua,
      await ua.get(authorizationRequest(proxy, client, RESOURCE).url),
      client.redirectUri,
      {
        login: 'carol',
      },
    );
    expect(first.pages).toEqual(['proxy-consent', 'upstream-login', 'upstream-consent']);
    const cookie = first.response.headers
      .getSetCookie()
      .find((value) => value.startsWith('portcullis-consent-'));
    expect(cookie).toMatch(
      /^portcullis-consent-[\w-]{22}-\d+=[\w-]+\.[\w-]+; Path=\/; HttpOnly; SameSite=Lax; Max-Age=\d+$/,
    );

    // The proxy session is gone; the cookie alone takes the browser straight upstream, which answers silently; no
    // consent page, only the one-click confirmation a public loopback client gets when nothing else was clicked.
    await proxy.prisma.loginSession.updateMany({ data: { revokedAt: new Date() } });
    const again = await walk(
      ua,
      await ua.get(authorizationRequest(proxy, client, RESOURCE).url),
      client.redirectUri,
    );
    expect(again.pages).toEqual(['confirm']);
    expect(again.stoppedAt?.searchParams.get('code')).toBeTruthy();

    // Client B, same browser with client A's cookie: the page is shown.
    await proxy.prisma.loginSession.updateMany({ data: { revokedAt: new Date() } });
    const other = await proxy.createClient({ name: 'Other app' });
    await consentPage(other, ua);
    // A's cookie value planted under B's cookie name does not verify either: the page again, nothing written.
    const value = cookie!.split(';')[0]!.split('=')[1]!;
    ua.cookieJar.setCookie(
      `${consentCookieName(other.clientId, new URL(proxy.issuer))}=${value}; Path=/; HttpOnly; SameSite=Lax`,
      proxy.issuer,
    );
    const planted = await expectNothingPersisted(async () => {
      const result = await walk(
        ua,
        await ua.get(authorizationRequest(proxy, other, RESOURCE).url),
        other.redirectUri,
        {
          consent: 'leave',
        },
      );
      expect(result.pages).toEqual(['proxy-consent']);
      return result.response;
    });
    expect(planted.status).toBe(200);
  });

  it('shows the page again for prompt=consent even with a consent cookie', async () => {
    const ua = new HeadlessUserAgent();
    await walk(ua, await ua.get(authorizationRequest(proxy, client, RESOURCE).url), client.redirectUri, {
      login: 'dave',
    });
    await proxy.prisma.loginSession.updateMany({ data: { revokedAt: new Date() } });
    const result = await walk(
      ua,
      await ua.get(authorizationRequest(proxy, client, RESOURCE, { prompt: 'consent' }).url),
      client.redirectUri,
      { consent: 'leave' },
    );
    expect(result.pages).toEqual(['proxy-consent']);
  });

  it('never follows next or return_to parameters, at /authorize, on the consent form or at the callback', async () => {
    const evil = 'https://evil.example/landing';
    const { ua, page } = await consentPage(client);
    const approved = await ua.submit(
      page.form(),
      { next: evil, return_to: evil },
      { ...approve, allowUnknownFields: true },
    );
    expect(approved.location).toMatch(new RegExp(`^${upstream.issuer}/auth\\?`));
    const atCallback = await walk(ua, approved, `${proxy.issuer}/upstream/callback`, { login: 'erin' });
    const callback = new URL(atCallback.stoppedAt!);
    callback.searchParams.set('next', evil);
    callback.searchParams.set('return_to', evil);
    const result = await walk(ua, await ua.get(callback), client.redirectUri);
    expect(result.stoppedAt?.searchParams.get('code')).toBeTruthy();

    const fromAuthorize = await walk(
      ua,
      await ua.get(authorizationRequest(proxy, client, RESOURCE, { next: evil, return_to: evil }).url),
      client.redirectUri,
    );
    expect(fromAuthorize.stoppedAt?.searchParams.get('code')).toBeTruthy();
    for (const visited of [...atCallback.visited, ...result.visited, ...fromAuthorize.visited]) {
      expect(visited.startsWith('https://evil.example')).toBe(false);
    }
  });
});
