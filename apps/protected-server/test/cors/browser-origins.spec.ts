import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  startDatabase,
  startTestAuthorizationServer,
  type TestAuthorizationServer,
  type TestDatabase,
} from '@portcullis/testing';
import {
  bearerChallengeOf,
  countNotes,
  legacyHeaders,
  legacyResult,
  LEGACY_REVISION,
  modernMessage,
  postMcp,
} from '../support/mcp-requests.js';
import { startProtectedServer, type ProtectedServer } from '../support/protected-server.harness.js';

const ALLOWED = 'http://localhost:6274';
// Another port of the same loopback host: another origin, not listed.
const REFUSED = 'http://localhost:6275';
const EXPOSED = 'WWW-Authenticate, Mcp-Session-Id, MCP-Protocol-Version, DPoP-Nonce';

/** Every `Access-Control-*` header of a response: none at all is what a refused origin must see. */
function corsHeaders(response: Response): Record<string, string> {
  return Object.fromEntries([...response.headers].filter(([name]) => name.startsWith('access-control-')));
}

function preflight(app: ProtectedServer, origin: string, method: string, requestHeaders: string) {
  return fetch(app.mcpUrl, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': method,
      'access-control-request-headers': requestHeaders,
    },
  });
}

describe('CORS_ORIGINS on the MCP endpoint', () => {
  let as: TestAuthorizationServer;
  let database: TestDatabase;
  let app: ProtectedServer;
  let writer: string;

  beforeAll(async () => {
    as = await startTestAuthorizationServer({ audience: 'set per token' });
    database = await startDatabase();
    app = await startProtectedServer({
      authorizationServer: as.issuer,
      database,
      env: { CORS_ORIGINS: ` ${ALLOWED} , https://app.example.com` },
    });
    writer = await as.mint({ claims: { aud: app.resource, scope: 'notes:read notes:write' } });
  });
  afterAll(async () => {
    await app?.close();
    await database?.stop();
    await as?.close();
  });

  it.each(['POST', 'GET', 'DELETE'])(
    'answers the preflight of %s /mcp from an allowed origin',
    async (method) => {
      const response = await preflight(
        app,
        ALLOWED,
        method,
        'authorization, dpop, mcp-session-id, mcp-protocol-version, last-event-id, content-type, accept',
      );
      expect(response.status).toBe(204);
      const headers = corsHeaders(response);
      expect(headers['access-control-allow-origin']).toBe(ALLOWED);
      expect(headers['access-control-allow-methods']).toBe('GET, POST, DELETE');
      for (const name of [
        'Authorization',
        'DPoP',
        'Mcp-Session-Id',
        'MCP-Protocol-Version',
        'Last-Event-ID',
        'Content-Type',
        'Accept',
      ]) {
        expect(headers['access-control-allow-headers']?.split(', ')).toContain(name);
      }
      expect(headers['access-control-allow-credentials']).toBeUndefined();
    },
  );

  it('lets an allowed origin read the 401 challenge and the 403 insufficient_scope challenge', async () => {
    const unauthenticated = await postMcp(app, modernMessage('tools/list'), { headers: { origin: ALLOWED } });
    expect(unauthenticated.status).toBe(401);
    expect(bearerChallengeOf(unauthenticated).params['resource_metadata']).toContain(
      '/.well-known/oauth-protected-resource/mcp',
    );
    expect(corsHeaders(unauthenticated)).toEqual({
      'access-control-allow-origin': ALLOWED,
      'access-control-expose-headers': EXPOSED,
    });

    const reader = await as.mint({ claims: { aud: app.resource, scope: 'notes:read' } });
    const insufficient = await postMcp(
      app,
      modernMessage('tools/call', { name: 'notes_create', arguments: { title: 'x' } }),
      { token: reader, headers: { origin: ALLOWED } },
    );
    expect(insufficient.status).toBe(403);
    expect(bearerChallengeOf(insufficient).params['error']).toBe('insufficient_scope');
    expect(corsHeaders(insufficient)).toEqual({
      'access-control-allow-origin': ALLOWED,
      'access-control-expose-headers': EXPOSED,
    });
  });

  it('grants an allowed origin the MCP answers, Mcp-Session-Id exposed, in a 2025-11-25 session', async () => {
    const initialize = await postMcp(
      app,
      {
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: {
          protocolVersion: LEGACY_REVISION,
          capabilities: {},
          clientInfo: { name: 'web', version: '1' },
        },
      },
      { token: writer, headers: { origin: ALLOWED } },
    );
    expect(initialize.status).toBe(200);
    expect(initialize.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(initialize.headers.get('access-control-expose-headers')).toContain('Mcp-Session-Id');
    const sessionId = initialize.headers.get('mcp-session-id');
    expect(sessionId).toBeTruthy();
    await initialize.body?.cancel();

    const call = await postMcp(
      app,
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'notes_list', arguments: {} } },
      { token: writer, headers: { origin: ALLOWED, ...legacyHeaders(sessionId!) } },
    );
    expect(call.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect((await legacyResult(call)).result?.isError).toBeFalsy();
  });

  it('refuses another origin before authentication: no CORS grant, its preflight 403, its calls 403', async () => {
    const before = await countNotes(app);
    const refusedPreflight = await preflight(app, REFUSED, 'POST', 'authorization, content-type');
    expect(refusedPreflight.status).toBe(403);
    expect(corsHeaders(refusedPreflight)).toEqual({});

    // The MCP transport's Origin check (DNS rebinding) runs before authentication: no token, no challenge.
    const unauthenticated = await postMcp(app, modernMessage('tools/list'), { headers: { origin: REFUSED } });
    expect(unauthenticated.status).toBe(403);
    expect(unauthenticated.headers.get('www-authenticate')).toBeNull();
    expect(await unauthenticated.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 }, id: null });
    expect(corsHeaders(unauthenticated)).toEqual({});

    // With a good token, it refuses it before any tool runs.
    const call = await postMcp(
      app,
      modernMessage('tools/call', { name: 'notes_create', arguments: { title: 'from a foreign page' } }),
      { token: writer, headers: { origin: REFUSED } },
    );
    expect(call.status).toBe(403);
    expect(corsHeaders(call)).toEqual({});
    expect(await countNotes(app)).toBe(before);
    // The same call from the allowed origin goes through, so the refusal is the origin's.
    const allowed = await postMcp(
      app,
      modernMessage('tools/call', { name: 'notes_create', arguments: { title: 'from the allowed page' } }),
      { token: writer, headers: { origin: ALLOWED } },
    );
    expect(allowed.status).toBe(200);
    expect(await countNotes(app)).toBe(before + 1);
  });
});

describe('the default browser origins (CORS_ORIGINS unset) in development and test', () => {
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

  it('grants every loopback origin, at any port, and no other', async () => {
    for (const origin of ['http://localhost:6274', 'http://127.0.0.1:5173', 'http://[::1]:3000']) {
      const response = await postMcp(app, modernMessage('tools/list'), { headers: { origin } });
      expect(response.headers.get('access-control-allow-origin')).toBe(origin);
    }
    const foreign = await postMcp(app, modernMessage('tools/list'), {
      headers: { origin: 'https://evil.example' },
    });
    expect(corsHeaders(foreign)).toEqual({});
  });
});
