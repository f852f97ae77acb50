import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  bearerChallengeOf,
  legacyHeaders,
  modernMessage,
  openLegacySession,
  postMcp,
} from '../support/mcp-requests.js';
import { startProtectedServer, type ProtectedServer } from '../support/protected-server.harness.js';
import { startTestAuthorizationServer, type TestAuthorizationServer } from '@portcullis/testing';

describe('GET and DELETE /mcp, and the transport’s own guards', () => {
  let as: TestAuthorizationServer;
  let app: ProtectedServer;
  let alice: string;
  let bob: string;

  beforeAll(async () => {
    as = await startTestAuthorizationServer({ audience: 'set per token' });
    app = await startProtectedServer({ authorizationServer: as.issuer });
    alice = await as.mint({ claims: { aud: app.resource, sub: 'alice', scope: 'notes:read' } });
    bob = await as.mint({ claims: { aud: app.resource, sub: 'bob', scope: 'notes:read' } });
  });
  afterAll(async () => {
    await app?.close();
    await as?.close();
  });

  const get = (token: string | undefined, headers: Record<string, string> = {}, signal?: AbortSignal) =>
    fetch(app.mcpUrl, {
      headers: {
        accept: 'text/event-stream',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...headers,
      },
      ...(signal ? { signal } : {}),
    });

  it('asks for a token on GET and DELETE too', async () => {
    const response = await get(undefined);
    expect(response.status).toBe(401);
    expect(bearerChallengeOf(response).params['resource_metadata']).toContain(
      '/.well-known/oauth-protected-resource/mcp',
    );
    expect((await fetch(app.mcpUrl, { method: 'DELETE' })).status).toBe(401);
  });

  it('opens the session’s server-to-client SSE stream on GET, its headers sent at once', async () => {
    const sessionId = await openLegacySession(app, alice);
    const abort = new AbortController();
    const started = Date.now();
    const response = await get(alice, legacyHeaders(sessionId), abort.signal);
    // Well before the first keep-alive (15 s), which is when Node would otherwise send them.
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    abort.abort();
  });

  it('refuses GET without a session id', async () => {
    expect((await get(alice)).status).toBe(400);
  });

  it('does not let another user end a session, and lets its owner end it', async () => {
    const sessionId = await openLegacySession(app, alice);
    const remove = (token: string) =>
      fetch(app.mcpUrl, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${token}`, ...legacyHeaders(sessionId) },
      });
    expect((await remove(bob)).status).toBe(404);
    expect((await remove(alice)).status).toBe(200);
    const ping = await postMcp(
      app,
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { token: alice, headers: legacyHeaders(sessionId) },
    );
    expect(ping.status).toBe(404);
  });

  it('refuses a browser request from a foreign origin (DNS rebinding)', async () => {
    const response = await postMcp(app, modernMessage('tools/list'), {
      token: alice,
      headers: { origin: 'https://evil.example' },
    });
    expect(response.status).toBe(403);
    const allowed = await postMcp(app, modernMessage('tools/list'), {
      token: alice,
      headers: { origin: app.url },
    });
    expect(allowed.status).toBe(200);
  });
});

describe('shutdown', () => {
  it('closes promptly while a session’s SSE stream is open', async () => {
    const as = await startTestAuthorizationServer({ audience: 'set per token' });
    const app = await startProtectedServer({ authorizationServer: as.issuer });
    try {
      const token = await as.mint({ claims: { aud: app.resource } });
      const sessionId = await openLegacySession(app, token);
      const stream = await fetch(app.mcpUrl, {
        headers: {
          accept: 'text/event-stream',
          authorization: `Bearer ${token}`,
          ...legacyHeaders(sessionId),
        },
      });
      expect(stream.status).toBe(200);
      const started = Date.now();
      await app.close();
      expect(Date.now() - started).toBeLessThan(5_000);
      // The stream ended with the server.
      await expect(stream.text()).resolves.toBeDefined();
    } finally {
      await as.close();
    }
  });
});
