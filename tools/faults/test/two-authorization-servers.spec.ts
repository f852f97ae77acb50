// Two authorization server processes on one PostgreSQL (and one Redis) behind a round-robin balancer, as Keycloak
// and Hydra run several stateless instances: the interaction crosses instances (sign-in on one, consent on the
// other, the token on either); 20 concurrent refreshes of one token spread over both behave as one server would
// (strict rotation: exactly one succeeds; with REFRESH_TOKEN_REUSE_GRACE: all get the same answer) and touch no
// other family; rate limits are shared through Redis. (A key rotation across both: key-rotation-under-load.spec.ts.)
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  postgresServerAvailable,
  startRedis,
  type TestRedis,
  refresh,
  signIn,
  startAuthorizationServers,
  type AuthorizationServerCluster,
  type TestClient,
} from '@portcullis/testing';
import { Redis } from 'ioredis';

const describeWithPostgres = postgresServerAvailable() ? describe : describe.skip;

async function signedIn(cluster: AuthorizationServerCluster, client: TestClient) {
  const tokens = await signIn(cluster.issuer, client, await cluster.createUser());
  expect(tokens.status).toBe(200);
  return tokens.body as { access_token: string; refresh_token: string };
}

describeWithPostgres('two authorization servers behind a balancer, strict refresh rotation', () => {
  let cluster: AuthorizationServerCluster;
  beforeAll(async () => {
    cluster = await startAuthorizationServers(2);
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  it('walks one interaction across both instances and redeems its code on either', async () => {
    const client = await cluster.createClient();
    const before = cluster.instances.map((instance) => cluster.balancer.sent.get(instance.url) ?? 0);
    const tokens = await signedIn(cluster, client);
    const during = cluster.instances.map(
      (instance, index) => (cluster.balancer.sent.get(instance.url) ?? 0) - before[index]!,
    );
    // authorize, login page, login form, consent page, consent form, token: spread over both.
    expect(during.every((count) => count >= 2)).toBe(true);
    // The refresh token works at each instance directly, in turn.
    let current = tokens.refresh_token;
    for (const instance of cluster.instances) {
      const rotated = await refresh(instance.url, client, current);
      expect(rotated.status).toBe(200);
      current = rotated.body['refresh_token'] as string;
    }
  });

  it('lets exactly one of 20 concurrent refreshes of one token spread over both succeed, and no other family suffer', async () => {
    const client = await cluster.createClient();
    const raced = await signedIn(cluster, client);
    const bystander = await signedIn(cluster, client);

    const results = await Promise.all(
      Array.from({ length: 20 }, () => refresh(cluster.issuer, client, raced.refresh_token)),
    );

    expect(results.filter((result) => result.status === 200)).toHaveLength(1);
    expect(results.filter((result) => result.body['error'] === 'invalid_grant')).toHaveLength(19);
    expect(results.every((result) => result.status < 500)).toBe(true);
    // Reuse revoked the raced family, and only it.
    expect((await refresh(cluster.issuer, client, bystander.refresh_token)).status).toBe(200);
  });
});

describeWithPostgres(
  'two authorization servers behind a balancer, a 30 s reuse grace and a shared Redis',
  () => {
    let cluster: AuthorizationServerCluster;
    let redis: TestRedis | undefined;
    beforeAll(async () => {
      redis = (await startRedis()).redis;
      cluster = await startAuthorizationServers(2, {
        REFRESH_TOKEN_REUSE_GRACE: '30',
        ...(redis ? { REDIS_URL: redis.url, RATE_LIMIT_TOKEN: '300' } : {}),
      });
    });
    afterAll(async () => {
      await cluster?.stop();
      await redis?.stop();
    });

    it('gives all of 20 concurrent refreshes of one token spread over both one and the same answer', async () => {
      const client = await cluster.createClient();
      const raced = await signedIn(cluster, client);

      const results = await Promise.all(
        Array.from({ length: 20 }, () => refresh(cluster.issuer, client, raced.refresh_token)),
      );

      expect(results.map((result) => result.status)).toEqual(Array.from({ length: 20 }, () => 200));
      expect(new Set(results.map((result) => JSON.stringify(result.body))).size).toBe(1);
      const successor = results[0]!.body['refresh_token'] as string;
      expect((await refresh(cluster.issuer, client, successor)).status).toBe(200);
    });

    it('shares one rate limit budget between both instances', async () => {
      if (!redis) {
        // CI always has Redis (a container).
        expect(process.env['CI']).toBeUndefined();
        return;
      }
      const client = await cluster.createClient();
      // The token endpoint's budget is per client address (the balancer's): 300 a minute between both instances. The
      // tests before spent some of it and started its minute; the burst starts a minute of its own, so that it is
      // measured against one window, not the end of one and the start of the next. Two budgets of their own would
      // let all 500 through (250 each).
      const counters = new Redis(redis.url);
      try {
        const keys = await counters.keys(`portcullis:rate:${cluster.issuer}|token|*`);
        if (keys.length > 0) await counters.del(...keys);
      } finally {
        await counters.quit();
      }
      const answers = await Promise.all(
        Array.from({ length: 500 }, () => refresh(cluster.issuer, client, 'not-a-token')),
      );
      const allowed = answers.filter((answer) => answer.status !== 429).length;
      expect(allowed).toBeLessThanOrEqual(300);
      expect(allowed).toBeGreaterThan(250);
      expect(answers.every((answer) => answer.status === 429 || answer.status === 400)).toBe(true);
    });
  },
);
