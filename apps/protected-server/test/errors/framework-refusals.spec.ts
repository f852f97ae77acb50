import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestAuthorizationServer, type TestAuthorizationServer } from '@portcullis/testing';
import { countNotes, modernMessage, postMcp } from '../support/mcp-requests.js';
import { startProtectedServer, type ProtectedServer } from '../support/protected-server.harness.js';

/**
 * What the framework refuses before any handler runs is answered in the resource server's own error format (RFC 6750
 * Section 3 with the RFC 6749 Section 5.2 body), never in the framework's `{ statusCode, message }` and never as a
 * 5xx. Such a refusal is no authorization decision, so it carries no Bearer challenge.
 */
describe('requests no handler serves, in the RFC 6750 error format', () => {
  let as: TestAuthorizationServer;
  let app: ProtectedServer;
  let token: string;

  beforeAll(async () => {
    as = await startTestAuthorizationServer({ audience: 'set per token' });
    app = await startProtectedServer({ authorizationServer: as.issuer });
    token = await as.mint({ claims: { aud: app.resource, scope: 'notes' } });
  });
  afterAll(async () => {
    await app?.close();
    await as?.close();
  });

  /** Asserts an `invalid_request` error response with `status`, and that the request persisted nothing. */
  async function expectRefusal(send: () => Promise<Response>, status: number, description?: string) {
    const before = await countNotes(app);
    const response = await send();
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('www-authenticate')).toBeNull();
    expect(response.headers.get('x-request-id')).toBeTruthy();
    const body = (await response.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['error', 'error_description']);
    expect(body['error']).toBe('invalid_request');
    if (description) expect(body['error_description']).toBe(description);
    expect(await countNotes(app)).toBe(before);
  }

  it('answers a path no route serves with 404 invalid_request', async () => {
    await expectRefusal(() => fetch(`${app.url}/no-such-endpoint`), 404, 'no such endpoint');
    await expectRefusal(
      () => fetch(`${app.url}/mcp/unknown`, { headers: { authorization: `Bearer ${token}` } }),
      404,
      'no such endpoint',
    );
  });

  it('answers a method no route serves on a served path like an unknown route: 404, in the same format', async () => {
    // Fastify has no 405: a method without a route is an unknown route.
    await expectRefusal(
      () => fetch(app.mcpUrl, { method: 'PATCH', headers: { authorization: `Bearer ${token}` } }),
      404,
      'no such endpoint',
    );
    await expectRefusal(() => fetch(`${app.url}/api/notes`, { method: 'PUT' }), 404, 'no such endpoint');
  });

  it('refuses a body over the 64 KiB limit with 413 invalid_request and creates no note', async () => {
    const create = modernMessage('tools/call', {
      name: 'notes_create',
      arguments: { title: 'x'.repeat(70 * 1024) },
    });
    await expectRefusal(() => postMcp(app, create, { token }), 413, 'the request body is too large');
  });

  it('refuses a media type no parser takes with 415 invalid_request and creates no note', async () => {
    const create = modernMessage('tools/call', { name: 'notes_create', arguments: { title: 'xml' } });
    await expectRefusal(
      () => postMcp(app, create, { token, headers: { 'content-type': 'application/xml' } }),
      415,
      'unsupported content type',
    );
  });

  it('answers a URL the router cannot decode with 400 invalid_request, not the framework’s body', async () => {
    await expectRefusal(() => fetch(`${app.url}/mcp/%zz`), 400);
  });

  it('leaves MCP traffic to the MCP endpoint, whose JSON-RPC errors are unchanged', async () => {
    const response = await postMcp(app, { not: 'json-rpc' }, { token });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 }, id: null });
  });
});
