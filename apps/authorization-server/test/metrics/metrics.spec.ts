// /metrics on the authorization server (Prometheus text format, prom-client): present, parsed, and moving with what
// the server does: HTTP requests by route template and status, tokens issued by grant type, refresh token reuse,
// database statements and pool, and the process. With METRICS_TOKEN it requires that bearer token.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { HeadlessUserAgent, metricValue, parseMetrics, postgresServerAvailable } from '@portcullis/testing';
import {
  authorizationRequest,
  authorize,
  redeem,
  startAuthorizationServer,
  tokenRequest,
  type AuthorizationServerFixture,
} from '../support/authorization-server.fixture.js';

const TOKEN = 'metrics-scraper-secret-0123456789';

describe('/metrics', () => {
  let as: AuthorizationServerFixture;
  beforeAll(async () => {
    as = await startAuthorizationServer({ env: { METRICS_TOKEN: TOKEN } });
  });
  afterAll(async () => {
    await as?.close();
  });

  const scrape = async () => {
    const response = await fetch(`${as.app.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return parseMetrics(await response.text());
  };

  it('refuses a scrape without the bearer token, or with another, with a Bearer challenge', async () => {
    const attempts: Record<string, string>[] = [
      {},
      { authorization: 'Bearer not-the-token' },
      { authorization: `Basic ${TOKEN}` },
    ];
    for (const headers of attempts) {
      const response = await fetch(`${as.app.url}/metrics`, { headers });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
      expect(await response.text()).not.toContain('process_cpu');
    }
  });

  it('moves with a sign-in, a token, a refresh and a reused refresh token', async () => {
    const before = await scrape();
    const user = await as.createUser();
    const client = await as.createClient();
    const request = authorizationRequest(as, client, { scope: 'notes:read' });
    const tokens = await redeem(
      as,
      client,
      await authorize(new HeadlessUserAgent(), request, user, client),
      request,
    );
    expect(tokens.status).toBe(200);
    const refresh = (token: string) =>
      tokenRequest(as, { grant_type: 'refresh_token', refresh_token: token, client_id: client.clientId });
    expect((await refresh(tokens.body['refresh_token'] as string)).status).toBe(200);
    expect((await refresh(tokens.body['refresh_token'] as string)).status).toBe(400);
    const after = await scrape();

    const delta = (name: string, labels: Record<string, string> = {}) =>
      metricValue(after, name, labels) - metricValue(before, name, labels);
    expect(delta('portcullis_tokens_issued_total', { grant_type: 'authorization_code' })).toBe(1);
    expect(delta('portcullis_tokens_issued_total', { grant_type: 'refresh_token' })).toBe(1);
    expect(delta('portcullis_refresh_token_reuse_total')).toBe(1);
    expect(
      delta('http_request_duration_seconds_count', { method: 'POST', route: '/token', status_code: '200' }),
    ).toBe(2);
    expect(
      delta('http_request_duration_seconds_count', { method: 'POST', route: '/token', status_code: '400' }),
    ).toBe(1);
    expect(delta('http_request_duration_seconds_count', { method: 'GET', route: '/authorize' })).toBe(1);
    // Statements were timed, successful ones as ok.
    expect(delta('portcullis_db_query_duration_seconds_count', { outcome: 'ok' })).toBeGreaterThan(5);
    // The process is described (prom-client's default metrics).
    expect(metricValue(after, 'process_cpu_seconds_total')).toBeGreaterThan(0);
    expect(metricValue(after, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
    if (postgresServerAvailable()) {
      expect(metricValue(after, 'portcullis_db_pool_connections', { state: 'max' })).toBe(10);
      expect(metricValue(after, 'portcullis_db_pool_connections', { state: 'open' })).toBeGreaterThan(0);
    }
  });

  it('names routes by their template, so a path of its own makes no series of its own', async () => {
    await fetch(`${as.app.url}/register/dcr_not-a-client-${Date.now()}`);
    await fetch(`${as.app.url}/no-such-path-${Date.now()}`);
    const samples = await scrape();
    const routes = new Set(
      samples
        .filter((sample) => sample.name === 'http_request_duration_seconds_count')
        .map((sample) => sample.labels['route']),
    );
    expect(routes).toContain('/register/:clientId');
    expect(routes).toContain('unmatched');
    expect(
      [...routes].some((route) => route?.includes('dcr_not-a-client') || route?.includes('no-such-path')),
    ).toBe(false);
  });
});
