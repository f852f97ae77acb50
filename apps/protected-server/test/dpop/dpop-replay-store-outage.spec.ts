import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestAuthorizationServer, type TestAuthorizationServer } from '@portcullis/testing';
import { createDpopKey, dpopProof } from '../support/dpop-proofs.js';
import { modernMessage } from '../support/mcp-requests.js';
import { startProtectedServer, type ProtectedServer } from '../support/protected-server.harness.js';

// One app in this file: its log lines are read, and the logger is per process.

const createNote = (title: string) =>
  modernMessage('tools/call', { name: 'notes_create', arguments: { title } });

function send(app: ProtectedServer, authorization: string, proof?: string): Promise<Response> {
  return fetch(app.mcpUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'notes_create',
      authorization,
      ...(proof === undefined ? {} : { dpop: proof }),
    },
    body: JSON.stringify(createNote('x')),
  });
}

describe('DPoP with its Redis unreachable', () => {
  let as: TestAuthorizationServer;
  let app: ProtectedServer;

  beforeAll(async () => {
    as = await startTestAuthorizationServer({ audience: 'set per token' });
    // Nothing listens on port 1: every replay check fails.
    app = await startProtectedServer({
      authorizationServer: as.issuer,
      env: { EXTENSIONS: 'dpop', REDIS_URL: 'redis://127.0.0.1:1' },
      captureLogs: true,
    });
  });
  afterAll(async () => {
    await app?.close();
    await as?.close();
  });

  it('fails closed: a good proof is refused with 503 temporarily_unavailable, and nothing is persisted', async () => {
    const key = await createDpopKey();
    const token = await as.mint({
      claims: { aud: app.resource, scope: 'notes:write', cnf: { jkt: key.jkt } },
    });
    const response = await send(
      app,
      `DPoP ${token}`,
      await dpopProof(key, { method: 'POST', url: app.mcpUrl, token }),
    );
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('2');
    expect(((await response.json()) as { error: string }).error).toBe('temporarily_unavailable');
    expect(await app.database.database.prisma.note.count()).toBe(0);
  });

  it('still serves unbound Bearer tokens, which need no replay check', async () => {
    const token = await as.mint({ claims: { aud: app.resource, scope: 'notes:write' } });
    const response = await send(app, `Bearer ${token}`);
    expect(response.status).toBe(200);
  });

  it('logs the outage once, not once per reconnection attempt', async () => {
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(app.logs().match(/Redis is unreachable/g)).toHaveLength(1);
  });
});
