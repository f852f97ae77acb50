import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  type TestAuthorizationServer,
  requestLogLines,
  startTestAuthorizationServer,
} from '@portcullis/testing';
import { countNotes, modernMessage, postMcp } from '../support/mcp-requests.js';
import { startProtectedServer, type ProtectedServer } from '../support/protected-server.harness.js';

describe('the request log', () => {
  let as: TestAuthorizationServer;
  let app: ProtectedServer;
  let token: string;

  beforeAll(async () => {
    as = await startTestAuthorizationServer({ audience: 'set per token' });
    app = await startProtectedServer({ authorizationServer: as.issuer, captureLogs: true });
    token = await as.mint({ claims: { aud: app.resource, scope: 'notes' } });
  });
  afterAll(async () => {
    await app?.close();
    await as?.close();
  });

  const linesOf = (requestId: string) => requestLogLines(() => app.logs(), requestId);

  it('censors token-bearing query parameters in any letter case, and never writes the Authorization or DPoP header', async () => {
    const queryToken = await as.mint({ claims: { aud: app.resource, scope: 'notes', sub: 'leaked' } });
    const secrets = [queryToken, randomBytes(16).toString('hex'), randomBytes(16).toString('hex')];
    const dpop = randomBytes(24).toString('base64url');
    const requestId = randomUUID();
    const response = await fetch(
      `${app.url}/api/notes?Access_Token=${queryToken}&CODE=${secrets[1]}&Refresh_Token=${secrets[2]}&limit=5`,
      { headers: { Authorization: `Bearer ${token}`, DPoP: dpop, 'x-request-id': requestId } },
    );
    expect(response.status).toBe(200);
    const lines = await linesOf(requestId);
    expect(lines).toContain('Access_Token=[redacted]&CODE=[redacted]&Refresh_Token=[redacted]&limit=5');
    for (const secret of [...secrets, token, dpop]) expect(app.logs()).not.toContain(secret);
  });

  it('censors them in the query of an MCP request and writes nothing of its body, which persists nothing when refused', async () => {
    const secret = randomBytes(16).toString('hex');
    const bodySecret = randomBytes(16).toString('hex');
    const requestId = randomUUID();
    const before = await countNotes(app);
    const response = await postMcp(
      app,
      modernMessage('tools/call', {
        name: 'notes_create',
        arguments: { title: 'x', Client_Secret: bodySecret, Code_Verifier: bodySecret },
      }),
      { query: `?Subject_Token=${secret}`, headers: { 'x-request-id': requestId } },
    );
    expect(response.status).toBe(401);
    expect(await countNotes(app)).toBe(before);
    expect(await linesOf(requestId)).toContain('Subject_Token=[redacted]');
    for (const value of [secret, bodySecret]) expect(app.logs()).not.toContain(value);
  });

  it('writes no line for health probes and metric scrapes, with or without a query, and one for other requests', async () => {
    const probes = ['/healthz', '/readyz', '/healthz?verbose=1', '/metrics'].map((path) => ({
      path,
      requestId: randomUUID(),
    }));
    for (const { path, requestId } of probes) {
      const response = await fetch(`${app.url}${path}`, { headers: { 'x-request-id': requestId } });
      await response.text();
    }
    // A request after them is logged: once its line is there, the probes' would be too.
    const after = randomUUID();
    await (await fetch(`${app.url}/api/notes`, { headers: { 'x-request-id': after } })).text();
    expect(await linesOf(after)).toContain('/api/notes');
    for (const { requestId } of probes) expect(app.logs()).not.toContain(requestId);
  });
});
