import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  callTool,
  legacyHeaders,
  modernMessage,
  openLegacySession,
  postMcp,
  rpcResult,
  toolJson,
} from '../support/mcp-requests.js';
import { startProtectedServer, type ProtectedServer } from '../support/protected-server.harness.js';
import { startTestAuthorizationServer, type TestAuthorizationServer } from '@portcullis/testing';

interface Note {
  id: string;
  title: string;
  body: string;
}

describe('each user sees only their own notes (by token sub)', () => {
  let as: TestAuthorizationServer;
  let app: ProtectedServer;
  let alice: string;
  let bob: string;
  let aliceNote: Note;

  beforeAll(async () => {
    as = await startTestAuthorizationServer({ audience: 'set per token' });
    app = await startProtectedServer({ authorizationServer: as.issuer });
    alice = await as.mint({ claims: { aud: app.resource, sub: 'alice', scope: 'notes' } });
    bob = await as.mint({ claims: { aud: app.resource, sub: 'bob', scope: 'notes', client_id: 'client-1' } });
    aliceNote = await toolJson<Note>(
      await callTool(app, alice, 'notes_create', { title: 'alice’s secret', body: 'the launch codes' }),
    );
  });
  afterAll(async () => {
    await app?.close();
    await as?.close();
  });

  it('stores the note under its creator’s issuer and subject', async () => {
    const stored = await app.database.database.prisma.note.findUnique({ where: { id: aliceNote.id } });
    expect(stored).toMatchObject({
      issuer: as.issuer,
      owner: 'alice',
      title: 'alice’s secret',
      body: 'the launch codes',
    });
  });

  it('lets the owner list and read the note', async () => {
    expect(await toolJson<Note[]>(await callTool(app, alice, 'notes_list'))).toEqual([
      expect.objectContaining({ id: aliceNote.id, title: 'alice’s secret' }),
    ]);
    expect(await toolJson<Note>(await callTool(app, alice, 'notes_get', { id: aliceNote.id }))).toMatchObject(
      {
        body: 'the launch codes',
      },
    );
  });

  it('shows another user an empty list', async () => {
    expect(await toolJson<Note[]>(await callTool(app, bob, 'notes_list'))).toEqual([]);
  });

  it('answers another user’s notes_get exactly like an unknown id', async () => {
    const theirs = await rpcResult(await callTool(app, bob, 'notes_get', { id: aliceNote.id }));
    const unknown = await rpcResult(
      await callTool(app, bob, 'notes_get', { id: '00000000-0000-4000-8000-000000000000' }),
    );
    expect(theirs.result).toEqual(unknown.result);
    expect(theirs.result?.isError).toBe(true);
    expect(JSON.stringify(theirs)).not.toContain('launch codes');
  });

  it('does not let another user delete the note', async () => {
    const response = await rpcResult(await callTool(app, bob, 'notes_delete', { id: aliceNote.id }));
    expect(response.result?.isError).toBe(true);
    expect(await app.database.database.prisma.note.count({ where: { id: aliceNote.id } })).toBe(1);
  });

  it('does not let another user read the note as a resource, nor list it', async () => {
    const read = await rpcResult(
      await postMcp(app, modernMessage('resources/read', { uri: `notes://${aliceNote.id}` }), { token: bob }),
    );
    expect(read.error).toBeDefined();
    expect(JSON.stringify(read)).not.toContain('launch codes');
    const list = (await (await postMcp(app, modernMessage('resources/list'), { token: bob })).json()) as {
      result: { resources: unknown[] };
    };
    expect(list.result.resources).toEqual([]);

    const own = (await (
      await postMcp(app, modernMessage('resources/read', { uri: `notes://${aliceNote.id}` }), {
        token: alice,
      })
    ).json()) as { result: { contents: { text: string }[] } };
    expect(JSON.parse(own.result.contents[0]!.text)).toMatchObject({
      id: aliceNote.id,
      body: 'the launch codes',
    });
  });

  it('shows another user an empty list on the REST route', async () => {
    const theirs = await fetch(`${app.url}/api/notes`, { headers: { authorization: `Bearer ${bob}` } });
    expect(await theirs.json()).toEqual({ notes: [] });
    const own = await fetch(`${app.url}/api/notes`, { headers: { authorization: `Bearer ${alice}` } });
    expect(((await own.json()) as { notes: Note[] }).notes.map((note) => note.id)).toEqual([aliceNote.id]);
  });

  it('answers a 2025-era session id presented with another user’s token like an unknown session', async () => {
    const sessionId = await openLegacySession(app, alice);
    const hijack = await postMcp(
      app,
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'notes_list', arguments: {} } },
      { token: bob, headers: legacyHeaders(sessionId) },
    );
    expect(hijack.status).toBe(404);
    const unknown = await postMcp(
      app,
      { jsonrpc: '2.0', id: 3, method: 'ping' },
      {
        token: bob,
        headers: legacyHeaders('6f1c0a52-51d4-4bb8-8e0f-1b0c3f7c9d10'),
      },
    );
    expect(unknown.status).toBe(404);
    expect(await hijack.json()).toEqual(await unknown.json());
  });
});

describe('a user is an issuer and a subject: the same sub at another trusted issuer is someone else', () => {
  let as: TestAuthorizationServer;
  let proxy: TestAuthorizationServer;
  let app: ProtectedServer;
  let atServer: string;
  let atProxy: string;
  let note: Note;

  beforeAll(async () => {
    as = await startTestAuthorizationServer({ audience: 'set per token' });
    proxy = await startTestAuthorizationServer({ audience: 'set per token' });
    app = await startProtectedServer({
      authorizationServer: as.issuer,
      env: { EXTRA_AUTHORIZATION_SERVERS: proxy.issuer },
    });
    atServer = await as.mint({ claims: { aud: app.resource, sub: 'user-1', scope: 'notes' } });
    atProxy = await proxy.mint({ claims: { aud: app.resource, sub: 'user-1', scope: 'notes' } });
    note = await toolJson<Note>(
      await callTool(app, atServer, 'notes_create', { title: 'mine', body: 'private' }),
    );
  });
  afterAll(async () => {
    await app?.close();
    await proxy?.close();
    await as?.close();
  });

  it('keeps the note from the other issuer’s user-1: not listed, not readable, not deletable', async () => {
    expect(await toolJson<Note[]>(await callTool(app, atProxy, 'notes_list'))).toEqual([]);
    const read = await rpcResult(await callTool(app, atProxy, 'notes_get', { id: note.id }));
    expect(read.result?.isError).toBe(true);
    expect(JSON.stringify(read)).not.toContain('private');
    expect(
      (await rpcResult(await callTool(app, atProxy, 'notes_delete', { id: note.id }))).result?.isError,
    ).toBe(true);
    const rest = await fetch(`${app.url}/api/notes`, { headers: { authorization: `Bearer ${atProxy}` } });
    expect(await rest.json()).toEqual({ notes: [] });
    expect(await app.database.database.prisma.note.count({ where: { id: note.id } })).toBe(1);
    // Its own user-1 still has it.
    expect((await toolJson<Note[]>(await callTool(app, atServer, 'notes_list'))).map((n) => n.id)).toEqual([
      note.id,
    ]);
  });

  it('gives each issuer’s user-1 their own notes', async () => {
    const theirs = await toolJson<Note>(await callTool(app, atProxy, 'notes_create', { title: 'theirs' }));
    const rows = await app.database.database.prisma.note.findMany({
      where: { owner: 'user-1' },
      orderBy: { title: 'asc' },
    });
    expect(rows.map((row) => [row.title, row.issuer])).toEqual([
      ['mine', as.issuer],
      ['theirs', proxy.issuer],
    ]);
    expect((await toolJson<Note[]>(await callTool(app, atProxy, 'notes_list'))).map((n) => n.id)).toEqual([
      theirs.id,
    ]);
  });

  it('answers a 2025-era session id presented by the other issuer’s user-1 like an unknown session', async () => {
    const sessionId = await openLegacySession(app, atServer);
    const hijack = await postMcp(
      app,
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'notes_list', arguments: {} } },
      { token: atProxy, headers: legacyHeaders(sessionId) },
    );
    expect(hijack.status).toBe(404);
    const own = await postMcp(
      app,
      { jsonrpc: '2.0', id: 4, method: 'ping' },
      { token: atServer, headers: legacyHeaders(sessionId) },
    );
    expect(own.status).toBe(200);
  });
});
