import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { HousekeepingRepository, HousekeepingService } from '@portcullis/authorization';
import { freePort, HeadlessUserAgent, type UserAgentResponse } from '@portcullis/testing';
import { UpstreamHousekeeping } from '../../src/housekeeping/upstream-housekeeping.service.js';
import { UpstreamStates } from '../../src/upstream/upstream-state.repository.js';
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
const TIMEOUT_MS = 1000;
/** Scheduling slack on a shared two-core machine: the page must come within the timeout plus this. */
const SLACK_MS = 750;

async function consentPage(
  proxy: ProxyFixture,
  client: TestClient,
): Promise<{ ua: HeadlessUserAgent; page: UserAgentResponse }> {
  const ua = new HeadlessUserAgent();
  const result = await walk(
    ua,
    await ua.get(authorizationRequest(proxy, client, RESOURCE).url),
    client.redirectUri,
    {
      consent: 'leave',
    },
  );
  return { ua, page: result.response };
}

const approve = { button: { name: 'decision', value: 'approve' } };

describe('an upstream that is slow', () => {
  let upstream: UpstreamFixture;
  let proxy: ProxyFixture;
  let client: TestClient;

  beforeAll(async () => {
    const port = await freePort();
    upstream = await startUpstream({ redirectUri: proxyCallback(port) });
    proxy = await startProxy({
      port,
      upstream,
      resource: RESOURCE,
      env: { UPSTREAM_TIMEOUT_MS: String(TIMEOUT_MS) },
    });
    client = await proxy.createClient();
  });
  afterAll(async () => {
    upstream?.stall(undefined);
    await proxy?.close();
    await upstream?.close();
  });

  it('gives a clear error page within the timeout when discovery hangs, and stores no state', async () => {
    const { ua, page } = await consentPage(proxy, client);
    upstream.stall('/.well-known/');
    try {
      const started = Date.now();
      const response = await ua.submit(page.form(), {}, approve);
      const elapsed = Date.now() - started;
      expect(response.status).toBe(504);
      expect(response.body).toContain('id="upstream-timeout"');
      expect(response.body).toContain('did not answer within 1 second');
      expect(response.location).toBeUndefined();
      expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
      expect(elapsed).toBeLessThan(TIMEOUT_MS + SLACK_MS);
      expect(await proxy.prisma.upstreamState.count()).toBe(0);
    } finally {
      upstream.stall(undefined);
    }
  });

  it('gives a clear error page within the timeout when the code exchange hangs, and mints nothing', async () => {
    const ua = new HeadlessUserAgent();
    const request = authorizationRequest(proxy, client, RESOURCE);
    const atCallback = await walk(ua, await ua.get(request.url), `${proxy.issuer}/upstream/callback`, {
      login: 'heidi',
    });
    const callback = atCallback.stoppedAt!;
    expect(callback.searchParams.get('code')).toBeTruthy();
    const before = await proxy.counts();
    upstream.stall('/token');
    try {
      const started = Date.now();
      const response = await ua.get(callback);
      const elapsed = Date.now() - started;
      expect(response.status).toBe(504);
      expect(response.body).toContain('id="upstream-timeout"');
      expect(elapsed).toBeLessThan(TIMEOUT_MS + SLACK_MS);
      const after = await proxy.counts();
      expect(after).toEqual({ ...before, upstreamStates: before.upstreamStates - 1 });
      expect(after.codes).toBe(0);
      expect(after.consents).toBe(0);
    } finally {
      upstream.stall(undefined);
    }
  });

  it('leaves no state or consent rows behind once their lifetime is over', async () => {
    // A person who consented and never came back from the upstream.
    const { ua, page } = await consentPage(proxy, client);
    expect((await ua.submit(page.form(), {}, approve)).status).toBe(303);
    expect(await proxy.prisma.upstreamState.count()).toBeGreaterThan(0);
    const housekeeping = new UpstreamHousekeeping(new UpstreamStates(proxy.prisma, repositoryOptions()));
    const later = new Date(Date.now() + 11 * 60_000);
    await housekeeping.sweep(later);
    await new HousekeepingService(new HousekeepingRepository(proxy.prisma)).sweep(later);
    expect(await proxy.prisma.upstreamState.count()).toBe(0);
    expect(await proxy.prisma.pendingAuthorization.count()).toBe(0);
    expect(await proxy.prisma.consent.count()).toBe(0);
  });
});

describe('an upstream that is down', () => {
  let proxy: ProxyFixture;
  let client: TestClient;

  beforeAll(async () => {
    const port = await freePort();
    const nothingListens = await freePort();
    proxy = await startProxy({
      port,
      upstream: {
        issuer: `http://127.0.0.1:${nothingListens}`,
        clientId: 'portcullis-proxy',
        clientSecret: 'x'.repeat(32),
      },
      resource: RESOURCE,
      env: { UPSTREAM_TIMEOUT_MS: String(TIMEOUT_MS) },
    });
    client = await proxy.createClient();
  });
  afterAll(async () => {
    await proxy?.close();
  });

  it('says so on a page at once, and stores nothing', async () => {
    const { ua, page } = await consentPage(proxy, client);
    const before = await proxy.counts();
    const started = Date.now();
    const response = await ua.submit(page.form(), {}, approve);
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS);
    expect(response.status).toBe(502);
    expect(response.body).toContain('id="upstream-unreachable"');
    expect(response.body).toContain('could not be reached');
    expect(response.location).toBeUndefined();
    expect(await proxy.counts()).toEqual(before);
  });
});
