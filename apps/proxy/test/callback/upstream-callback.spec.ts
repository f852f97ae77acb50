import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { freePort, HeadlessUserAgent, type UserAgentResponse } from '@portcullis/testing';
import { UpstreamTokens } from '../../src/upstream/upstream-token.repository.js';
import { walk } from '../support/person.js';
import {
  authorizationRequest,
  proxyCallback,
  repositoryOptions,
  startProxy,
  type ProxyFixture,
  type TestClient,
} from '../support/proxy.fixture.js';
import { startUpstream, type UpstreamFixture } from '../support/upstream.fixture.js';

const RESOURCE = 'http://127.0.0.1:4199/mcp';
const SEALING_KEY = randomBytes(32);

describe('the upstream callback', () => {
  let upstream: UpstreamFixture;
  let proxy: ProxyFixture;
  let client: TestClient;
  let callbackPrefix: string;

  beforeAll(async () => {
    const port = await freePort();
    callbackPrefix = proxyCallback(port);
    upstream = await startUpstream({ redirectUri: callbackPrefix });
    proxy = await startProxy({
      port,
      upstream,
      resource: RESOURCE,
      env: { KEY_ENCRYPTION_KEY: SEALING_KEY.toString('hex') },
    });
    client = await proxy.createClient();
  });
  afterAll(async () => {
    await proxy?.close();
    await upstream?.close();
  });

  /** A browser that consented and signed in upstream, stopped at the upstream's redirect to the proxy's callback. */
  async function atCallback(login = 'frank'): Promise<{ ua: HeadlessUserAgent; callback: URL }> {
    const ua = new HeadlessUserAgent();
    const result = await walk(
      ua,
      await ua.get(authorizationRequest(proxy, client, RESOURCE).url),
      callbackPrefix,
      { login },
    );
    expect(result.stoppedAt?.searchParams.get('code')).toBeTruthy();
    return { ua, callback: result.stoppedAt! };
  }

  /** Requests `url` in `ua` and checks it is refused with a page: nothing written, no token request upstream. */
  async function expectRefused(ua: HeadlessUserAgent, url: URL, status: number): Promise<UserAgentResponse> {
    const before = await proxy.counts();
    const tokenRequests = upstream.exchanges.filter((exchange) => exchange.path.startsWith('/token')).length;
    const response = await ua.get(url);
    expect(response.status).toBe(status);
    expect(response.location).toBeUndefined();
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    const after = await proxy.counts();
    // The state may be used up by the attempt (single use); nothing else changes.
    expect({ ...after, upstreamStates: 0 }).toEqual({ ...before, upstreamStates: 0 });
    expect(after.upstreamStates).toBeLessThanOrEqual(before.upstreamStates);
    expect(upstream.exchanges.filter((exchange) => exchange.path.startsWith('/token')).length).toBe(
      tokenRequests,
    );
    return response;
  }

  it('refuses a callback without state', async () => {
    const { ua, callback } = await atCallback();
    callback.searchParams.delete('state');
    const response = await expectRefused(ua, callback, 400);
    expect(response.body).toContain('no state');
  });

  it('refuses a callback whose state was never issued', async () => {
    const { ua, callback } = await atCallback();
    callback.searchParams.set('state', 'x'.repeat(43));
    const response = await expectRefused(ua, callback, 400);
    expect(response.body).toContain('unknown or was already used');
    // The real state is still there, unused, for the real answer.
    expect(await proxy.prisma.upstreamState.count()).toBeGreaterThan(0);
  });

  it('refuses a replayed callback after the first one minted a code', async () => {
    const { ua, callback } = await atCallback();
    const first = await walk(ua, await ua.get(callback), client.redirectUri);
    expect(first.stoppedAt?.searchParams.get('code')).toBeTruthy();
    const response = await expectRefused(ua, callback, 400);
    expect(response.body).toContain('unknown or was already used');
  });

  it('refuses a callback whose state is older than ten minutes, and deletes it', async () => {
    const { ua, callback } = await atCallback();
    await proxy.prisma.upstreamState.updateMany({ data: { expiresAt: new Date(Date.now() - 1000) } });
    const states = await proxy.prisma.upstreamState.count();
    const response = await expectRefused(ua, callback, 400);
    expect(response.body).toContain('expired');
    expect(await proxy.prisma.upstreamState.count()).toBe(states - 1);
  });

  it('refuses a callback arriving in another browser, without using up its state', async () => {
    const { ua, callback } = await atCallback();
    const states = await proxy.prisma.upstreamState.count();
    const response = await expectRefused(new HeadlessUserAgent(), callback, 403);
    expect(response.body).toContain('not started in this browser');
    expect(await proxy.prisma.upstreamState.count()).toBe(states);
    // The browser that went upstream still finishes its sign-in.
    const finished = await walk(ua, await ua.get(callback.href), client.redirectUri);
    expect(finished.stoppedAt?.searchParams.get('code')).toBeTruthy();
  });

  it('refuses a callback whose iss is not the upstream (or is missing) with a sign-in failure page, redeeming nothing', async () => {
    for (const iss of ['http://127.0.0.1:1/evil', undefined]) {
      const { ua, callback } = await atCallback();
      if (iss) callback.searchParams.set('iss', iss);
      else callback.searchParams.delete('iss');
      const response = await expectRefused(ua, callback, 400);
      expect(response.body).toContain('This sign-in cannot be accepted');
      expect(response.body).toContain('did not come from the sign-in service');
    }
  });

  it('refuses a callback that repeats a parameter', async () => {
    const { ua, callback } = await atCallback();
    callback.searchParams.append('code', 'second-code');
    await expectRefused(ua, callback, 400);
  });

  it('refuses a callback whose code or state holds a NUL, before the upstream is asked anything', async () => {
    for (const name of ['code', 'state']) {
      const { ua, callback } = await atCallback();
      callback.searchParams.set(name, `${callback.searchParams.get(name)}\u0000`);
      const states = await proxy.prisma.upstreamState.count();
      const response = await expectRefused(ua, callback, 400);
      expect(response.body).toContain('control character');
      // The real state is still there, unused, for the real answer.
      expect(await proxy.prisma.upstreamState.count()).toBe(states);
    }
  });

  it('tells a pre-registered client access_denied when the person said no upstream', async () => {
    const trusted = await proxy.createClient({ origin: 'preregistered' });
    const ua = new HeadlessUserAgent();
    const result = await walk(
      ua,
      await ua.get(authorizationRequest(proxy, trusted, RESOURCE).url),
      callbackPrefix,
      {
        login: 'frank',
      },
    );
    const denied = new URL(result.stoppedAt!);
    denied.searchParams.delete('code');
    denied.searchParams.set('error', 'access_denied');
    denied.searchParams.set('error_description', 'said no');
    const before = await proxy.counts();
    const back = await walk(ua, await ua.get(denied), trusted.redirectUri);
    expect(back.stoppedAt?.searchParams.get('error')).toBe('access_denied');
    expect(back.stoppedAt?.searchParams.get('iss')).toBe(proxy.issuer);
    expect(back.stoppedAt?.searchParams.has('code')).toBe(false);
    const after = await proxy.counts();
    expect({ ...after, upstreamStates: 0 }).toEqual({ ...before, upstreamStates: 0 });
  });

  it('offers a self-registered client access_denied as a link, never a redirect, when the person said no upstream', async () => {
    const { ua, callback } = await atCallback();
    const denied = new URL(callback);
    denied.searchParams.delete('code');
    denied.searchParams.set('error', 'access_denied');
    denied.searchParams.set('error_description', 'said no');
    const before = await proxy.counts();
    const response = await ua.get(denied);
    expect(response.status).toBe(200);
    expect(response.location).toBeUndefined();
    const link = new URL(response.links().find((href) => href.startsWith(client.redirectUri))!);
    expect(Object.fromEntries(link.searchParams)).toEqual({
      error: 'access_denied',
      error_description: 'the user denied the request',
      state: expect.any(String),
      iss: proxy.issuer,
    });
    const after = await proxy.counts();
    expect({ ...after, upstreamStates: 0 }).toEqual({ ...before, upstreamStates: 0 });
  });

  it('keeps the upstream tokens sealed, bound to the local user, and never in a response', async () => {
    const { ua, callback } = await atCallback('grace');
    const result = await walk(ua, await ua.get(callback), client.redirectUri);
    const identity = await proxy.prisma.upstreamIdentity.findUniqueOrThrow({
      where: { provider_issuer_subject: { provider: 'oidc', issuer: upstream.issuer, subject: 'grace' } },
    });
    const row = await proxy.prisma.upstreamToken.findUniqueOrThrow({
      where: { userId_connection: { userId: identity.userId, connection: 'upstream' } },
    });
    const issued = upstream.issued();
    const sealed = row.accessToken ?? '';
    expect(sealed).toMatch(/^v1\./);
    expect(issued.has(sealed)).toBe(false);
    for (const value of issued) {
      expect(sealed.includes(value)).toBe(false);
      expect(result.stoppedAt!.href.includes(value)).toBe(false);
    }
    const user = await proxy.prisma.user.findUniqueOrThrow({ where: { id: identity.userId } });
    expect(user.username).toBe(`grace@${upstream.issuer.replace('http://', '')}`);

    // Under the key, for this user, they open to what the upstream issued; copied to another user, they do not.
    const tokens = new UpstreamTokens(proxy.prisma, repositoryOptions(SEALING_KEY, upstream.issuer));
    const opened = await tokens.find(identity.userId, 'upstream');
    expect(opened).toMatchObject({ live: true, issuer: upstream.issuer });
    expect(issued.has(opened?.live ? opened.accessToken : '')).toBe(true);
    const other = await proxy.prisma.upstreamIdentity.findFirstOrThrow({
      where: { NOT: { userId: identity.userId } },
    });
    await proxy.prisma.upstreamToken.upsert({
      where: { userId_connection: { userId: other.userId, connection: 'upstream' } },
      create: { ...row, userId: other.userId },
      update: { accessToken: row.accessToken, refreshToken: row.refreshToken },
    });
    expect(await tokens.find(other.userId, 'upstream')).toBeUndefined();
  });
});
