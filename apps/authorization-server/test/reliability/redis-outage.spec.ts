// The authorization server while Redis is away, the outage made by a TCP proxy between the server and its real Redis:
// it keeps serving with per-instance rate limits, logs one warning for the outage (not one per request or per
// reconnection), and shares its counters through Redis again once Redis is back.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { startFaultProxy, startRedis } from '@portcullis/testing';
import { Redis } from 'ioredis';
import { startAuthorizationServer, tokenRequest } from '../support/authorization-server.fixture.js';

/** How long the rate limiter waits for a Redis command (libs/authorization/src/throttling/rate-limit.store.ts). */
const COMMAND_TIMEOUT_MS = 1_000;

async function waitFor(condition: () => Promise<boolean>, withinMs: number): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < withinMs) {
    if (await condition()) return performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`not within ${withinMs} ms`);
}

describe('the authorization server while Redis is away', () => {
  it('limits per instance meanwhile, logs one warning, and shares its counters again once Redis is back', async () => {
    const started = await startRedis();
    if (!started.redis) {
      // CI always has Redis (a container).
      expect(process.env['CI']).toBeUndefined();
      return;
    }
    const target = new URL(started.redis.url);
    const proxy = await startFaultProxy({ host: target.hostname, port: Number(target.port || 6379) });
    const issuer = `https://as-${randomBytes(4).toString('hex')}.example`;
    const as = await startAuthorizationServer({
      env: { REDIS_URL: proxy.via(started.redis.url), RATE_LIMIT_TOKEN: '3', ISSUER: issuer },
      captureLogs: true,
    });
    const redis = new Redis(started.redis.url);
    const sharedHits = async () => {
      const keys = await redis.keys(`portcullis:rate:${issuer}|token|*`);
      return keys.length === 0 ? 0 : Number(await redis.get(keys[0]!));
    };
    const body = { grant_type: 'refresh_token', refresh_token: 'x', client_id: 'nobody' };
    try {
      expect((await tokenRequest(as, body)).status).toBe(401);
      expect(await sharedHits()).toBe(1);

      await proxy.down();
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push((await tokenRequest(as, body)).status);
      // Counted in this instance's memory: 3 a minute, whatever Redis counted before.
      expect(statuses).toEqual([401, 401, 401, 429, 429]);
      const warnings = as.app
        .logs()
        .split('\n')
        .filter((line) => line.includes('Redis is unreachable'));
      expect(warnings).toHaveLength(1);

      await redis.del(...(await redis.keys(`portcullis:rate:${issuer}|token|*`)));
      await proxy.up();
      await waitFor(
        async () => (await tokenRequest(as, body)).status !== 429 || (await sharedHits()) > 0,
        5_000,
      );
      expect(await sharedHits()).toBeGreaterThan(0);
      expect(as.app.logs()).toContain('Redis is reachable again');
    } finally {
      await as.close();
      await redis.quit();
      await proxy.close();
      await started.redis.stop();
    }
  });

  it('does not make every request wait for a Redis that keeps its connection but stops answering', async () => {
    const started = await startRedis();
    if (!started.redis) {
      expect(process.env['CI']).toBeUndefined();
      return;
    }
    const target = new URL(started.redis.url);
    const proxy = await startFaultProxy({ host: target.hostname, port: Number(target.port || 6379) });
    const as = await startAuthorizationServer({
      env: { REDIS_URL: proxy.via(started.redis.url), RATE_LIMIT_TOKEN: '1000' },
    });
    const body = { grant_type: 'refresh_token', refresh_token: 'x', client_id: 'nobody' };
    try {
      expect((await tokenRequest(as, body)).status).toBe(401);
      proxy.stall();
      // The first request waits for the command timeout (1 s), then the local counters answer; the next ones are
      // answered without asking Redis: none of them waits that long (one that asked would wait the whole second).
      const first = await timedStatus(() => tokenRequest(as, body));
      const next = [];
      for (let i = 0; i < 10; i += 1) next.push(await timedStatus(() => tokenRequest(as, body)));
      expect(first.status).toBe(401);
      // (a timer may fire a millisecond early)
      expect(first.ms).toBeGreaterThanOrEqual(COMMAND_TIMEOUT_MS - 5);
      expect(next.map(({ status }) => status)).toEqual(Array.from({ length: 10 }, () => 401));
      expect(Math.max(...next.map(({ ms }) => ms))).toBeLessThan(COMMAND_TIMEOUT_MS);
    } finally {
      await proxy.up();
      await as.close();
      await proxy.close();
      await started.redis.stop();
    }
  });
});

async function timedStatus(work: () => Promise<{ status: number }>): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  const { status } = await work();
  return { status, ms: performance.now() - started };
}
