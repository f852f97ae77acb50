import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startRedis } from '@portcullis/testing';
import { Redis } from 'ioredis';
import {
  startAuthorizationServer,
  tokenRequest,
  type AuthorizationServerFixture,
} from '../support/authorization-server.fixture.js';

describe('rate limits', () => {
  let as: AuthorizationServerFixture;
  beforeAll(async () => {
    as = await startAuthorizationServer({ env: { RATE_LIMIT_TOKEN: '3' } });
  });
  afterAll(async () => {
    await as?.close();
  });

  it('answer the token endpoint with 429 and Retry-After past the limit', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const response = await tokenRequest(as, {
        grant_type: 'refresh_token',
        refresh_token: 'x',
        client_id: 'nobody',
      });
      statuses.push(response.status);
      if (response.status === 429) {
        expect(response.body).toEqual({
          error: 'temporarily_unavailable',
          error_description: 'too many requests; retry later',
        });
        expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
      }
    }
    expect(statuses).toEqual([401, 401, 401, 429]);
  });
});

describe('rate limits behind a reverse proxy', () => {
  const body = { grant_type: 'refresh_token', refresh_token: 'x', client_id: 'nobody' };
  const from = (address: string) => ({ 'x-forwarded-for': address });

  it('count each client the proxy named in TRUST_PROXY forwards for, by its X-Forwarded-For', async () => {
    const as = await startAuthorizationServer({
      env: { RATE_LIMIT_TOKEN: '2', TRUST_PROXY: '127.0.0.1/8, ::1' },
    });
    try {
      const statuses = [
        (await tokenRequest(as, body, from('203.0.113.7'))).status,
        (await tokenRequest(as, body, from('203.0.113.7'))).status,
        (await tokenRequest(as, body, from('203.0.113.7'))).status,
        // Another client behind the same proxy has an allowance of its own.
        (await tokenRequest(as, body, from('203.0.113.8'))).status,
      ];
      expect(statuses).toEqual([401, 401, 429, 401]);
    } finally {
      await as.close();
    }
  });

  it('ignore X-Forwarded-For from anyone TRUST_PROXY does not name: a client cannot pick a fresh allowance', async () => {
    const as = await startAuthorizationServer({ env: { RATE_LIMIT_TOKEN: '2', TRUST_PROXY: '192.0.2.1' } });
    try {
      const statuses = [
        (await tokenRequest(as, body, from('203.0.113.7'))).status,
        (await tokenRequest(as, body, from('203.0.113.8'))).status,
        (await tokenRequest(as, body, from('203.0.113.9'))).status,
      ];
      expect(statuses).toEqual([401, 401, 429]);
    } finally {
      await as.close();
    }
  });
});

describe('rate limits with REDIS_URL', () => {
  it('are shared by every instance of the server', async () => {
    const started = await startRedis();
    if (!started.redis) {
      // Without Redis there is nothing to share; CI always has one (TEST_REDIS_URL).
      expect(process.env['CI']).toBeUndefined();
      return;
    }
    // Two instances of one issuer, one allowance of 2 per minute for this client address.
    const issuer = `https://as-${randomBytes(4).toString('hex')}.example`;
    const env = {
      REDIS_URL: started.redis.url,
      RATE_LIMIT_TOKEN: '2',
      COOKIE_SECRET: randomBytes(32).toString('hex'),
      ISSUER: issuer,
    };
    await flushRateLimits(started.redis.url, issuer);
    const one = await startAuthorizationServer({ env });
    const two = await startAuthorizationServer({ env, database: one.app.database });
    try {
      const body = { grant_type: 'refresh_token', refresh_token: 'x', client_id: 'nobody' };
      const statuses = [
        (await tokenRequest(one, body)).status,
        (await tokenRequest(two, body)).status,
        (await tokenRequest(one, body)).status,
        (await tokenRequest(two, body)).status,
      ];
      expect(statuses).toEqual([401, 401, 429, 429]);
    } finally {
      await two.close();
      await one.close();
      await flushRateLimits(started.redis.url, issuer);
      await started.redis.stop();
    }
  });

  it('are kept apart for two issuers on one Redis (an authorization server and a proxy)', async () => {
    const started = await startRedis();
    if (!started.redis) {
      expect(process.env['CI']).toBeUndefined();
      return;
    }
    const common = { REDIS_URL: started.redis.url, RATE_LIMIT_TOKEN: '2' };
    const one = await startAuthorizationServer({ env: common });
    const two = await startAuthorizationServer({ env: common });
    try {
      const body = { grant_type: 'refresh_token', refresh_token: 'x', client_id: 'nobody' };
      const statuses = [
        (await tokenRequest(one, body)).status,
        (await tokenRequest(one, body)).status,
        (await tokenRequest(two, body)).status,
        (await tokenRequest(two, body)).status,
        (await tokenRequest(one, body)).status,
      ];
      expect(statuses).toEqual([401, 401, 401, 401, 429]);
    } finally {
      await two.close();
      await one.close();
      await flushRateLimits(started.redis.url, one.issuer);
      await flushRateLimits(started.redis.url, two.issuer);
      await started.redis.stop();
    }
  });
});

async function flushRateLimits(url: string, issuer: string): Promise<void> {
  const redis = new Redis(url);
  try {
    const keys = await redis.keys(`portcullis:rate:${issuer}|token|*`);
    if (keys.length > 0) await redis.del(...keys);
  } finally {
    await redis.quit();
  }
}
