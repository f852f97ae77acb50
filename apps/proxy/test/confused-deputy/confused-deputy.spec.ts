import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { freePort, HeadlessUserAgent, startLoopbackServer, type LoopbackServer } from '@portcullis/testing';
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

/**
 * The confused deputy problem of the MCP security best practices
 * (https://modelcontextprotocol.io/specification/2025-06-18/basic/security_best_practices#confused-deputy-problem):
 * the proxy holds one static client ID upstream, where the victim has signed in and consented before, so the
 * upstream answers the proxy silently. An attacker registers its own client at the proxy with its own redirect URI
 * and sends the victim the authorization link. The proxy must ask the victim first.
 */
describe('the confused deputy attack', () => {
  let upstream: UpstreamFixture;
  let proxy: ProxyFixture;
  let canary: LoopbackServer;
  let legitimate: TestClient;
  let attacker: TestClient;
  let victim: HeadlessUserAgent;

  beforeAll(async () => {
    const port = await freePort();
    upstream = await startUpstream({ redirectUri: proxyCallback(port) });
    proxy = await startProxy({ port, upstream, resource: RESOURCE });
    canary = await startLoopbackServer((_request, response) => void response.writeHead(200).end('thanks'));
    legitimate = await proxy.createClient({ origin: 'preregistered', name: 'Notes desktop' });

    // The attacker registers a client by dynamic registration, with its own redirect URI.
    const registered = await fetch(`${proxy.issuer}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Notes desktop',
        redirect_uris: [`${canary.url}/steal`],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
        application_type: 'native',
      }),
    });
    expect(registered.status).toBe(201);
    const body = (await registered.json()) as { client_id: string };
    attacker = { clientId: body.client_id, redirectUri: `${canary.url}/steal`, name: 'Notes desktop' };
  });
  afterAll(async () => {
    await canary?.close();
    await proxy?.close();
    await upstream?.close();
  });

  beforeEach(async () => {
    // The victim used the legitimate client before: signed in upstream, consented there (remembered) and here.
    victim = new HeadlessUserAgent();
    const earlier = await walk(
      victim,
      await victim.get(authorizationRequest(proxy, legitimate, RESOURCE).url),
      legitimate.redirectUri,
      { login: 'victim' },
    );
    expect(earlier.stoppedAt?.searchParams.get('code')).toBeTruthy();
    canary.requests.length = 0;
  });

  async function expectNoCodeAndNothingAtTheCanary(run: () => Promise<void>): Promise<void> {
    const codes = await proxy.prisma.authorizationCode.count({ where: { clientId: attacker.clientId } });
    const grants = await proxy.prisma.consent.count({ where: { clientId: attacker.clientId } });
    await run();
    expect(await proxy.prisma.authorizationCode.count({ where: { clientId: attacker.clientId } })).toBe(
      codes,
    );
    expect(await proxy.prisma.consent.count({ where: { clientId: attacker.clientId } })).toBe(grants);
    expect(codes).toBe(0);
    expect(canary.requests).toHaveLength(0);
  }

  /** The victim's proxy session is over (it expired); the upstream still remembers them. */
  async function endProxySessions(): Promise<void> {
    await proxy.prisma.loginSession.updateMany({ data: { revokedAt: new Date() } });
  }

  it('shows the consent page before going upstream, and with no answer nothing happens', async () => {
    await endProxySessions();
    await expectNoCodeAndNothingAtTheCanary(async () => {
      const upstreamRequests = upstream.exchanges.length;
      const link = authorizationRequest(proxy, attacker, RESOURCE).url;
      const result = await walk(victim, await victim.get(link), attacker.redirectUri, { consent: 'leave' });
      expect(result.pages).toEqual(['proxy-consent']);
      expect(result.stoppedAt).toBeUndefined();
      // Not one request went upstream: the upstream's silent approval was never asked for.
      expect(upstream.exchanges).toHaveLength(upstreamRequests);
      expect(result.response.body).toContain('Notes desktop');
      expect(result.response.body).toContain(`127.0.0.1:${canary.port}`);
      expect(result.response.body).toContain('id="warning-recent"');
      expect(result.response.body).toContain('id="warning-local"');
    });
  });

  it('on deny sends nothing to the attacker: the answer is a link the victim may ignore', async () => {
    await endProxySessions();
    await expectNoCodeAndNothingAtTheCanary(async () => {
      const link = authorizationRequest(proxy, attacker, RESOURCE).url;
      const result = await walk(victim, await victim.get(link), attacker.redirectUri, { consent: 'deny' });
      expect(result.pages).toEqual(['proxy-consent', 'other']);
      expect(result.stoppedAt).toBeUndefined();
      expect(result.response.status).toBe(200);
      expect(result.response.location).toBeUndefined();
      const returnLink = /href="([^"]+)"/.exec(result.response.body)?.[1]?.replace(/&#38;/g, '&');
      const offered = new URL(returnLink!);
      expect(offered.origin + offered.pathname).toBe(attacker.redirectUri);
      expect(offered.searchParams.get('error')).toBe('access_denied');
      expect(offered.searchParams.has('code')).toBe(false);
    });
  });

  it('with a live proxy session still asks, on the consent page of the session, before any code', async () => {
    await expectNoCodeAndNothingAtTheCanary(async () => {
      const link = authorizationRequest(proxy, attacker, RESOURCE).url;
      const result = await walk(victim, await victim.get(link), attacker.redirectUri, { consent: 'leave' });
      expect(result.pages).toEqual(['session-consent']);
      expect(result.stoppedAt).toBeUndefined();
    });
  });

  it("refuses the attacker's own upstream sign-in when the victim's browser brings it back", async () => {
    // The attacker consents in its own browser and keeps the upstream authorization URL instead of following it.
    const attackerBrowser = new HeadlessUserAgent();
    const own = await walk(
      attackerBrowser,
      await attackerBrowser.get(authorizationRequest(proxy, attacker, RESOURCE).url),
      'http://upstream-redirect.invalid',
      { consent: 'leave' },
    );
    const sentUpstream = await attackerBrowser.submit(
      own.response.form(),
      {},
      { button: { name: 'decision', value: 'approve' } },
    );
    expect(sentUpstream.status).toBe(303);
    expect(sentUpstream.location).toMatch(new RegExp(`^${upstream.issuer}/auth\\?`));

    await expectNoCodeAndNothingAtTheCanary(async () => {
      // The victim opens it: the upstream answers silently (signed in, consent remembered) and sends the
      // victim's browser to the proxy's callback with the attacker's state.
      const result = await walk(victim, await victim.get(sentUpstream.location!), attacker.redirectUri);
      expect(result.visited.some((url) => url.startsWith(`${proxy.issuer}/upstream/callback?`))).toBe(true);
      expect(result.stoppedAt).toBeUndefined();
      expect(result.response.status).toBe(403);
      expect(result.response.body).toContain('not started in this browser');
    });
  });
});
