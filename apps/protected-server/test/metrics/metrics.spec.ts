// /metrics on the protected server: the resource server's refusals by reason (no credentials, the error code), HTTP
// requests by route template, and the process; open when METRICS_TOKEN is unset outside production.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  metricValue,
  parseMetrics,
  startTestAuthorizationServer,
  type TestAuthorizationServer,
} from '@portcullis/testing';
import { startProtectedServer, type ProtectedServer } from '../support/protected-server.harness.js';

describe('/metrics', () => {
  let as: TestAuthorizationServer;
  let app: ProtectedServer;
  beforeAll(async () => {
    as = await startTestAuthorizationServer({ audience: 'set per token' });
    app = await startProtectedServer({ authorizationServer: as.issuer });
  });
  afterAll(async () => {
    await app?.close();
    await as?.close();
  });

  const scrape = async () => {
    const response = await fetch(`${app.url}/metrics`);
    expect(response.status).toBe(200);
    return parseMetrics(await response.text());
  };
  const notes = (headers: Record<string, string> = {}) => fetch(`${app.url}/api/notes`, { headers });

  it('counts what the resource server refuses, by reason, and what it serves, by route', async () => {
    const reader = await as.mint({ claims: { aud: app.resource, scope: 'notes:read' } });
    const nobody = await as.mint({ claims: { aud: app.resource, scope: 'other' } });
    const before = await scrape();
    expect((await notes()).status).toBe(401);
    expect((await notes({ authorization: 'Bearer not.a.token' })).status).toBe(401);
    expect((await notes({ authorization: `Bearer ${nobody}` })).status).toBe(403);
    expect((await notes({ authorization: `Bearer ${reader}` })).status).toBe(200);
    const after = await scrape();

    const delta = (name: string, labels: Record<string, string>) =>
      metricValue(after, name, labels) - metricValue(before, name, labels);
    expect(delta('portcullis_token_validation_failures_total', { reason: 'missing' })).toBe(1);
    expect(delta('portcullis_token_validation_failures_total', { reason: 'invalid_token' })).toBe(1);
    expect(delta('portcullis_token_validation_failures_total', { reason: 'insufficient_scope' })).toBe(1);
    expect(
      delta('http_request_duration_seconds_count', {
        route: '/api/notes',
        status_code: '200',
        method: 'GET',
      }),
    ).toBe(1);
    expect(
      delta('http_request_duration_seconds_count', {
        route: '/api/notes',
        status_code: '401',
        method: 'GET',
      }),
    ).toBe(2);
    expect(metricValue(after, 'process_resident_memory_bytes')).toBeGreaterThan(0);
  });
});
