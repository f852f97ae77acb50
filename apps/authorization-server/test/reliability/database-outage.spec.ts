// The authorization server while PostgreSQL is away, the outage made by a TCP proxy between the server and its real
// PostgreSQL (connections reset, new ones refused, as a stopped server does): every request that needs it answers
// 503 `temporarily_unavailable` with `Retry-After` in the protocol's format (RFC 6749 5.2 JSON at the token endpoint,
// a page for a browser), quickly; /readyz is 503 and /healthz 200; nothing single-use is consumed; once PostgreSQL is
// back the same requests succeed, with no restart.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  HeadlessUserAgent,
  postgresServerAvailable,
  startDatabase,
  startFaultProxy,
  type FaultProxy,
  type TestDatabase,
} from '@portcullis/testing';
import {
  authorizationRequest,
  authorize,
  redeem,
  startAuthorizationServer,
  tokenRequest,
  type AuthorizationServerFixture,
} from '../support/authorization-server.fixture.js';

const timed = async <T>(work: () => Promise<T>): Promise<[T, number]> => {
  const started = performance.now();
  const result = await work();
  return [result, performance.now() - started];
};

async function waitFor(condition: () => Promise<boolean>, withinMs: number): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < withinMs) {
    if (await condition()) return performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`not within ${withinMs} ms`);
}

const describeWithPostgres = postgresServerAvailable() ? describe : describe.skip;

describeWithPostgres('the authorization server while PostgreSQL is away', () => {
  let database: TestDatabase;
  let proxy: FaultProxy;
  let as: AuthorizationServerFixture;
  beforeAll(async () => {
    database = await startDatabase();
    proxy = await startFaultProxy({
      host: new URL(database.url!).hostname,
      port: Number(new URL(database.url!).port || 5432),
    });
    const url = proxy.via(database.url!);
    // The server reaches the database through the proxy; the test's own connection (`as.prisma`) does not.
    as = await startAuthorizationServer({ database: { ...database, url, target: { url } } });
  });
  afterAll(async () => {
    await as?.close();
    await proxy?.close();
    await database?.stop();
  });

  it('answers 503 with Retry-After in the protocol format, consumes nothing, and recovers by itself', async () => {
    const user = await as.createUser();
    const client = await as.createClient();
    // One grant with a refresh token, and one code not yet redeemed.
    const first = authorizationRequest(as, client, { scope: 'notes:read' });
    const ua = new HeadlessUserAgent();
    const tokens = await redeem(as, client, await authorize(ua, first, user, client), first);
    expect(tokens.status).toBe(200);
    const pending = authorizationRequest(as, client, { scope: 'notes:read' });
    const callback = await authorize(ua, pending, user, client);
    const refresh = () =>
      tokenRequest(as, {
        grant_type: 'refresh_token',
        refresh_token: tokens.body['refresh_token'] as string,
        client_id: client.clientId,
      });
    const before = await as.counts();

    await proxy.down();
    try {
      const [refused, refusedMs] = await timed(refresh);
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('5');
      expect(refused.headers.get('cache-control')).toBe('no-store');
      expect(refused.body).toEqual({
        error: 'temporarily_unavailable',
        error_description: 'the service cannot reach its database; retry later',
      });
      expect(refusedMs).toBeLessThan(2_500);
      const code = await redeem(as, client, callback, pending);
      expect(code.status).toBe(503);
      expect(code.body['error']).toBe('temporarily_unavailable');

      // A browser gets a page saying so, with the same status and Retry-After.
      const page = await fetch(authorizationRequest(as, client).url, { headers: { accept: 'text/html' } });
      expect(page.status).toBe(503);
      expect(page.headers.get('retry-after')).toBe('5');
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await page.text()).toContain('temporarily_unavailable');

      expect((await fetch(`${as.app.url}/readyz`)).status).toBe(503);
      expect((await fetch(`${as.app.url}/healthz`)).status).toBe(200);
      // Nothing was written or consumed while it was away.
      expect(await as.counts()).toEqual(before);
    } finally {
      await proxy.up();
    }

    const recoveredMs = await waitFor(
      async () => (await fetch(`${as.app.url}/readyz`)).status === 200,
      5_000,
    );
    expect(recoveredMs).toBeLessThan(5_000);
    const refreshed = await refresh();
    expect(refreshed.status).toBe(200);
    const redeemed = await redeem(as, client, callback, pending);
    expect(redeemed.status).toBe(200);
    const grants = await as.prisma.authorizationGrant.findMany({ where: { clientId: client.clientId } });
    expect(grants.every((grant) => grant.revokedAt === null)).toBe(true);
  });
});
