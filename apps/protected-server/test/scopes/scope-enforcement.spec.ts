import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { protectedResourceMetadataUrls } from '@portcullis/protocol';
import {
  bearerChallengeOf,
  callTool,
  countNotes,
  legacyHeaders,
  legacyResult,
  modernMessage,
  openLegacySession,
  postMcp,
  rpcResult,
  toolJson,
} from '../support/mcp-requests.js';
import { startProtectedServer, type ProtectedServer } from '../support/protected-server.harness.js';
import { startTestAuthorizationServer, type TestAuthorizationServer } from '@portcullis/testing';

describe('scopes, decided before the MCP SDK sees the request (MCP 2026-07-28 "Scope Challenge Handling")', () => {
  let as: TestAuthorizationServer;
  let app: ProtectedServer;
  const tokenWith = (scope: string | undefined) => as.mint({ claims: { aud: app.resource, scope } });

  beforeAll(async () => {
    as = await startTestAuthorizationServer({ audience: 'set per token' });
    app = await startProtectedServer({ authorizationServer: as.issuer });
  });
  afterEach(async () => {
    await app.database.database.prisma.note.deleteMany();
  });
  afterAll(async () => {
    await app?.close();
    await as?.close();
  });

  it('answers notes_create with a notes:read token with an HTTP 403 step-up challenge, and persists nothing', async () => {
    const response = await callTool(app, await tokenWith('notes:read'), 'notes_create', { title: 'draft' });
    expect(response.status).toBe(403);
    expect(bearerChallengeOf(response).params).toEqual({
      error: 'insufficient_scope',
      scope: 'notes:write',
      resource_metadata: protectedResourceMetadataUrls(app.resource)[0],
      error_description: 'This operation needs the scope notes:write.',
    });
    expect(await countNotes(app)).toBe(0);
  });

  it('lets a notes token create a note, through the scope hierarchy', async () => {
    const note = await toolJson<{ id: string; title: string }>(
      await callTool(app, await tokenWith('notes'), 'notes_create', { title: 'from the hierarchy' }),
    );
    expect(note.title).toBe('from the hierarchy');
    expect(await countNotes(app)).toBe(1);
  });

  it('lets a notes:write token read, since writing implies reading', async () => {
    const response = await callTool(app, await tokenWith('notes:write'), 'notes_list');
    expect(await toolJson<unknown[]>(response)).toEqual([]);
  });

  it.each([
    ['tools/list', {}],
    ['server/discover', {}],
    ['resources/templates/list', {}],
  ])('lets a token with no scope at all call %s', async (method, params) => {
    const response = await postMcp(app, modernMessage(method, params), { token: await tokenWith(undefined) });
    const { error } = await rpcResult(response);
    expect(error).toBeUndefined();
  });

  it('lets a token with no scope at all open a 2025-era session with initialize, list tools and ping', async () => {
    const token = await tokenWith(undefined);
    const sessionId = await openLegacySession(app, token);
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    for (const method of ['ping', 'tools/list']) {
      const response = await postMcp(
        app,
        { jsonrpc: '2.0', id: 7, method },
        { token, headers: legacyHeaders(sessionId) },
      );
      const message = await legacyResult(response);
      expect(message.error).toBeUndefined();
      expect(message.id).toBe(7);
    }
  });

  it.each([
    ['notes_list', 'tools/call', { name: 'notes_list', arguments: {} }, 'notes:read'],
    ['notes_get', 'tools/call', { name: 'notes_get', arguments: { id: 'x' } }, 'notes:read'],
    ['notes_delete', 'tools/call', { name: 'notes_delete', arguments: { id: 'x' } }, 'notes:write'],
    ['resources/read', 'resources/read', { uri: 'notes://x' }, 'notes:read'],
    ['resources/list', 'resources/list', {}, 'notes:read'],
  ])('requires %s’s scope of a token with none', async (_name, method, params, scope) => {
    const response = await postMcp(app, modernMessage(method, params), { token: await tokenWith(undefined) });
    expect(response.status).toBe(403);
    expect(bearerChallengeOf(response).params['scope']).toBe(scope);
  });

  it('fails closed on a method it has not classified: every scope is required', async () => {
    const response = await postMcp(
      app,
      modernMessage('completion/complete', { ref: { type: 'ref/prompt', name: 'x' } }),
      {
        token: await tokenWith('notes:read'),
      },
    );
    expect(response.status).toBe(403);
    expect(bearerChallengeOf(response).params['scope']).toBe('notes:read notes:write');
  });

  it('protects the REST route with the same module', async () => {
    const anonymous = await fetch(`${app.url}/api/notes`);
    expect(anonymous.status).toBe(401);
    expect(bearerChallengeOf(anonymous).params['scope']).toBe('notes:read');

    const unscoped = await fetch(`${app.url}/api/notes`, {
      headers: { authorization: `Bearer ${await tokenWith(undefined)}` },
    });
    expect(unscoped.status).toBe(403);

    const writer = await fetch(`${app.url}/api/notes`, {
      headers: { authorization: `Bearer ${await tokenWith('notes:write')}` },
    });
    expect(writer.status).toBe(200);
    expect(await writer.json()).toEqual({ notes: [] });
  });
});
