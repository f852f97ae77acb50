import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createMcpHandler, McpServer, type ServerContext } from '@modelcontextprotocol/server';
import { startTestAuthorizationServer, type TestAuthorizationServer } from '@portcullis/testing';
import {
  createResourceServer,
  type ProtectedContext,
  type ResourceServer,
  type ResourceServerLogger,
} from '../../src/index.js';
import { FORM_BODY_LIMIT } from '../../src/web/web-request.js';
import { bearer, bearerChallengeOf } from '../support/http.js';

const RESOURCE = 'http://127.0.0.1:9/mcp';
const METADATA_URL = 'http://127.0.0.1:9/.well-known/oauth-protected-resource/mcp';
const APP_ORIGIN = 'http://localhost:6274';

/** A handler that records what it was called with and answers 200. */
function recordingHandler() {
  const calls: { request: Request; context: ProtectedContext; body: string }[] = [];
  const handler = async (request: Request, context: ProtectedContext) => {
    calls.push({ request, context, body: await request.text() });
    return Response.json({ ok: true, subject: context.auth.subject });
  };
  return { calls, handler };
}

const at = (path: string, init?: RequestInit) => new Request(`http://127.0.0.1:9${path}`, init);

describe('protect: a web-standard handler behind bearer authentication', () => {
  let as: TestAuthorizationServer;
  let resourceServer: ResourceServer;
  const logged: string[] = [];
  const logger: ResourceServerLogger = {
    warn: (message) => logged.push(message),
    error: (message) => logged.push(message),
  };

  beforeAll(async () => {
    as = await startTestAuthorizationServer({ audience: RESOURCE });
    resourceServer = createResourceServer({
      resource: RESOURCE,
      authorizationServers: [as.issuer],
      scopesSupported: ['notes:read', 'notes:write'],
      scopeHierarchy: { notes: ['notes:read', 'notes:write'], 'notes:write': ['notes:read'] },
      browserOrigins: { origins: [APP_ORIGIN] },
      logger,
    });
  });
  afterAll(async () => {
    await as?.close();
  });

  it('answers a request without a token with 401, resource_metadata and scope, and never calls the handler', async () => {
    const { calls, handler } = recordingHandler();
    const response = await resourceServer.protect(handler)(at('/mcp', { method: 'POST', body: '{}' }));
    expect(response.status).toBe(401);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(bearerChallengeOf(response).params).toEqual({
      resource_metadata: METADATA_URL,
      scope: 'notes:read notes:write',
    });
    expect(await response.text()).toBe('');
    expect(calls).toHaveLength(0);
  });

  it('calls the handler with the SDK’s auth info (no token, the scopes the hierarchy implies) and our own', async () => {
    const { calls, handler } = recordingHandler();
    const token = await as.mint({ claims: { sub: 'alice', scope: 'notes:write' } });
    const response = await resourceServer.protect(handler, { scopes: ['notes:read'] })(
      at('/mcp', { method: 'POST', headers: bearer(token), body: '{"jsonrpc":"2.0"}' }),
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true, subject: 'alice' });
    const [call] = calls;
    expect(call?.body).toBe('{"jsonrpc":"2.0"}');
    expect(call?.context.auth).toMatchObject({
      subject: 'alice',
      scopes: ['notes:write'],
      validatedBy: 'jwt',
    });
    const { authInfo } = call!.context;
    expect(authInfo.token).toBe('');
    expect(authInfo.scopes).toEqual(['notes:write', 'notes:read']);
    expect(authInfo.resource?.href).toBe(new URL(RESOURCE).href);
    expect(authInfo.resourceMetadataUrl).toBe(METADATA_URL);
    expect(authInfo.extra).toMatchObject({
      subject: 'alice',
      issuer: as.issuer,
      grantedScopes: ['notes:write'],
    });
    expect(JSON.stringify(call!.context)).not.toContain(token.split('.')[2]!);
  });

  it('refuses a token for another audience with 401 invalid_token', async () => {
    const { calls, handler } = recordingHandler();
    const token = await as.mint({ claims: { aud: 'http://127.0.0.1:9/other' } });
    const response = await resourceServer.protect(handler)(at('/mcp', { headers: bearer(token) }));
    expect(response.status).toBe(401);
    expect(bearerChallengeOf(response).params).toMatchObject({
      error: 'invalid_token',
      resource_metadata: METADATA_URL,
    });
    expect(await response.json()).toEqual({
      error: 'invalid_token',
      error_description: 'The access token was not issued for this resource.',
    });
    expect(calls).toHaveLength(0);
  });

  it('refuses a token without a needed scope with 403 insufficient_scope naming every one', async () => {
    const { calls, handler } = recordingHandler();
    const token = await as.mint({ claims: { scope: 'notes:read' } });
    const response = await resourceServer.protect(handler, { scopes: ['notes:write', 'notes:read'] })(
      at('/mcp', { method: 'POST', headers: bearer(token), body: '{}' }),
    );
    expect(response.status).toBe(403);
    expect(bearerChallengeOf(response).params).toEqual({
      error: 'insufficient_scope',
      scope: 'notes:write notes:read',
      resource_metadata: METADATA_URL,
      error_description: 'This operation needs the scope notes:write notes:read.',
    });
    expect(calls).toHaveLength(0);
  });

  it('decides the scopes per request from a clone, so the handler still reads the body', async () => {
    const { calls, handler } = recordingHandler();
    const protectedHandler = resourceServer.protect(handler, {
      scopes: async (request) =>
        ((await request.json()) as { method?: string }).method === 'write' ? ['notes:write'] : [],
    });
    const token = await as.mint({ claims: { scope: 'notes:read' } });
    const read = await protectedHandler(
      at('/mcp', { method: 'POST', headers: bearer(token), body: '{"method":"read"}' }),
    );
    expect(read.status).toBe(200);
    expect(calls[0]?.body).toBe('{"method":"read"}');
    const write = await protectedHandler(
      at('/mcp', { method: 'POST', headers: bearer(token), body: '{"method":"write"}' }),
    );
    expect(write.status).toBe(403);
    expect(bearerChallengeOf(write).params['scope']).toBe('notes:write');
    expect(calls).toHaveLength(1);
  });

  it('refuses a token in the query string or in a form body with 400 invalid_request', async () => {
    const { calls, handler } = recordingHandler();
    const token = await as.mint();
    const protectedHandler = resourceServer.protect(handler);
    const inQuery = await protectedHandler(at(`/mcp?access_token=${token}`, { headers: bearer(token) }));
    expect(inQuery.status).toBe(400);
    expect(bearerChallengeOf(inQuery).params['error']).toBe('invalid_request');
    const inBody = await protectedHandler(
      at('/mcp', {
        method: 'POST',
        headers: { ...bearer(token), 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ access_token: token }).toString(),
      }),
    );
    expect(inBody.status).toBe(400);
    expect(((await inBody.json()) as { error: string }).error).toBe('invalid_request');
    expect(calls).toHaveLength(0);
  });

  it('reads at most 64 KiB of a form body before the token is checked: a longer one is 400, never read to its end', async () => {
    const { calls, handler } = recordingHandler();
    const protectedHandler = resourceServer.protect(handler);
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    // Declared too long: refused without reading.
    const declared = await protectedHandler(
      at('/mcp', { method: 'POST', headers: form, body: `a=${'x'.repeat(FORM_BODY_LIMIT)}` }),
    );
    expect(declared.status).toBe(400);
    expect(((await declared.json()) as { error: string }).error).toBe('invalid_request');
    // Streamed without a length and without an end: refused once past the limit, the rest never pulled.
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 1;
        controller.enqueue(new TextEncoder().encode('x'.repeat(16 * 1024)));
      },
    });
    const streamed = await protectedHandler(
      at('/mcp', { method: 'POST', headers: form, body: endless, duplex: 'half' } as RequestInit),
    );
    expect(streamed.status).toBe(400);
    expect(bearerChallengeOf(streamed).params['error']).toBe('invalid_request');
    expect(pulled).toBeLessThan(16);
    // A short form body without a token is still the plain 401.
    const short = await protectedHandler(at('/mcp', { method: 'POST', headers: form, body: 'a=1' }));
    expect(short.status).toBe(401);
    expect(calls).toHaveLength(0);
  });

  it('refuses a scope list with something that is not a scope-token when the handler is protected', () => {
    expect(() => resourceServer.protect(recordingHandler().handler, { scopes: ['two words'] })).toThrow(
      '"two words" is not an RFC 6749 scope-token',
    );
  });

  it('answers a scope function that breaks its contract with a generic 500, its cause logged and not sent', async () => {
    const { calls, handler } = recordingHandler();
    const response = await resourceServer.protect(handler, { scopes: () => ['bad scope'] })(
      at('/mcp', { headers: bearer(await as.mint()) }),
    );
    expect(response.status).toBe(500);
    const body = await response.text();
    expect(JSON.parse(body)).toEqual({
      error: 'server_error',
      error_description: 'The server could not complete the request.',
    });
    expect(body).not.toContain('bad scope');
    expect(logged.some((line) => line.includes('"bad scope" is not a scope-token'))).toBe(true);
    expect(calls).toHaveLength(0);
  });

  describe('browser origins (CORS and the MCP Origin check)', () => {
    it('answers an allowed origin’s preflight with 204 and the MCP request headers, before authentication', async () => {
      const { calls, handler } = recordingHandler();
      const response = await resourceServer.protect(handler)(
        at('/mcp', {
          method: 'OPTIONS',
          headers: {
            origin: APP_ORIGIN,
            'access-control-request-method': 'POST',
            'access-control-request-headers': 'authorization, mcp-param-region',
          },
        }),
      );
      expect(response.status).toBe(204);
      expect(response.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
      expect(response.headers.get('access-control-allow-headers')).toContain('Authorization');
      expect(response.headers.get('access-control-allow-headers')).toContain('mcp-param-region');
      expect(calls).toHaveLength(0);
    });

    it('grants an allowed origin its answers, the 401 challenge included', async () => {
      const { handler } = recordingHandler();
      const protectedHandler = resourceServer.protect(handler);
      const refused = await protectedHandler(at('/mcp', { headers: { origin: APP_ORIGIN } }));
      expect(refused.status).toBe(401);
      expect(refused.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
      expect(refused.headers.get('access-control-expose-headers')).toContain('WWW-Authenticate');
      const accepted = await protectedHandler(
        at('/mcp', { headers: { origin: APP_ORIGIN, ...bearer(await as.mint()) } }),
      );
      expect(accepted.status).toBe(200);
      expect(accepted.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
      expect(accepted.headers.get('vary')).toBe('Origin');
    });

    it('refuses another origin with 403 before its token is looked at, and its preflight with 403', async () => {
      const { calls, handler } = recordingHandler();
      // A resource that has not discovered its authorization server yet: validating any token would.
      const fresh = createResourceServer({
        resource: RESOURCE,
        authorizationServers: [as.issuer],
        browserOrigins: { origins: [APP_ORIGIN] },
        logger,
      });
      const protectedHandler = fresh.protect(handler);
      const before = as.hits('/.well-known/oauth-authorization-server');
      const response = await protectedHandler(
        at('/mcp', { headers: { origin: 'https://evil.example', ...bearer(await as.mint()) } }),
      );
      expect(response.status).toBe(403);
      expect(response.headers.get('access-control-allow-origin')).toBeNull();
      expect(await response.json()).toEqual({
        jsonrpc: '2.0',
        error: { code: -32000, message: 'Forbidden: this Origin may not call the MCP endpoint' },
        id: null,
      });
      const preflight = await protectedHandler(
        at('/mcp', {
          method: 'OPTIONS',
          headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
        }),
      );
      expect(preflight.status).toBe(403);
      expect(calls).toHaveLength(0);
      expect(as.hits('/.well-known/oauth-authorization-server')).toBe(before);
      const allowed = await protectedHandler(
        at('/mcp', { headers: { origin: APP_ORIGIN, ...bearer(await as.mint()) } }),
      );
      expect(allowed.status).toBe(200);
      expect(as.hits('/.well-known/oauth-authorization-server')).toBe(before + 1);
    });

    it('leaves origins to the host with cors: false', async () => {
      const { handler } = recordingHandler();
      const response = await resourceServer.protect(handler, { cors: false })(
        at('/mcp', { headers: { origin: 'https://evil.example', ...bearer(await as.mint()) } }),
      );
      expect(response.status).toBe(200);
      expect(response.headers.get('access-control-allow-origin')).toBeNull();
    });
  });

  it('serves an MCP SDK handler: a tool reads the caller from ctx.http.authInfo', async () => {
    const mcp = createMcpHandler(() => {
      const server = new McpServer({ name: 'protect-test', version: '1.0.0' });
      server.registerTool('whoami', { description: 'who calls' }, async (context: ServerContext) => ({
        content: [{ type: 'text', text: String(context.http?.authInfo?.extra?.['subject']) }],
      }));
      return server;
    });
    const protectedMcp = resourceServer.protect(mcp.fetch, { scopes: ['notes:read'] });
    const token = await as.mint({ claims: { sub: 'carol', scope: 'notes' } });
    const client = new Client({ name: 'protect-test-client', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(RESOURCE), {
        requestInit: { headers: bearer(token) },
        fetch: (url, init) => protectedMcp(new Request(url, init)),
      }),
    );
    try {
      const result = await client.callTool({ name: 'whoami', arguments: {} });
      expect(result.content).toEqual([{ type: 'text', text: 'carol' }]);
    } finally {
      await client.close();
      await mcp.close();
    }
  });
});

describe('protect while the authorization server cannot be reached', () => {
  it('answers 503 temporarily_unavailable with Retry-After, never 401, and logs why', async () => {
    const as = await startTestAuthorizationServer({ audience: RESOURCE });
    const warnings: string[] = [];
    try {
      as.failJwks(500);
      const resourceServer = createResourceServer({
        resource: RESOURCE,
        authorizationServers: [as.issuer],
        logger: { warn: (message) => warnings.push(message), error: (message) => warnings.push(message) },
      });
      const { calls, handler } = recordingHandler();
      const response = await resourceServer.protect(handler)(
        at('/mcp', { headers: bearer(await as.mint()) }),
      );
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(response.headers.get('www-authenticate')).toBeNull();
      expect(((await response.json()) as { error: string }).error).toBe('temporarily_unavailable');
      expect(warnings.some((line) => line.startsWith('temporarily_unavailable'))).toBe(true);
      expect(calls).toHaveLength(0);
    } finally {
      await as.close();
    }
  });
});
