import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestAuthorizationServer, type TestAuthorizationServer } from '@portcullis/testing';
import fc from 'fast-check';
import { callTool, rpcResult } from '../support/mcp-requests.js';
import { startProtectedServer, type ProtectedServer } from '../support/protected-server.harness.js';

// NUL cannot be stored in PostgreSQL and a lone surrogate has no UTF-8 form: a tool call carrying either in a note is
// refused by the tool's input rules with a tool error, never a 5xx, a database message or a stored note.
describe('control characters in tool arguments', () => {
  let as: TestAuthorizationServer;
  let app: ProtectedServer;
  let token: string;
  beforeAll(async () => {
    as = await startTestAuthorizationServer({ audience: 'set per token' });
    app = await startProtectedServer({ authorizationServer: as.issuer });
    token = await as.mint({ claims: { aud: app.resource, sub: 'writer', scope: 'notes' } });
  });
  afterAll(async () => {
    await app?.close();
    await as?.close();
  });

  it.each([
    ['a NUL in the title', { title: 'a\u0000b' }],
    ['a NUL in the body', { title: 'ok', body: 'x\u0000y' }],
    ['a lone surrogate in the title', { title: 'lone \ud800' }],
    ['an escape sequence in the body', { title: 'ok', body: '\u001b[31m' }],
  ])('refuses %s as a tool error, storing nothing', async (_name, args) => {
    const response = await callTool(app, token, 'notes_create', args);
    expect(response.status).toBe(200);
    const result = await rpcResult(response);
    expect(result.result?.isError).toBe(true);
    expect(JSON.stringify(result)).toContain('control character');
    expect(JSON.stringify(result)).not.toMatch(/prisma|postgres|invalid byte sequence/i);
    expect(await app.database.database.prisma.note.count()).toBe(0);
  });

  it('answers a database failure inside a tool with a generic tool error that names no file, code or database', async () => {
    const database = app.database.database;
    await database.withSession((session) => session.query('ALTER TABLE notes RENAME TO notes_away'));
    try {
      const result = await rpcResult(
        await callTool(app, token, 'notes_create', { title: 'during the failure' }),
      );
      expect(result.result).toMatchObject({
        isError: true,
        content: [
          { type: 'text', text: 'The notes service could not complete this request; try again later.' },
        ],
      });
    } finally {
      await database.withSession((session) => session.query('ALTER TABLE notes_away RENAME TO notes'));
    }
    expect(await database.prisma.note.count({ where: { title: 'during the failure' } })).toBe(0);
  });

  it('never answers 5xx to arbitrary Unicode in any tool argument, and stores only what it accepted', async () => {
    const calls: Record<string, (text: string) => Promise<Response>> = {
      'notes_create title': (text) => callTool(app, token, 'notes_create', { title: `t ${text}` }),
      'notes_create body': (text) => callTool(app, token, 'notes_create', { title: 't', body: text }),
      'notes_get id': (text) => callTool(app, token, 'notes_get', { id: text }),
      'notes_delete id': (text) => callTool(app, token, 'notes_delete', { id: text }),
    };
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...Object.keys(calls)),
        fc.string({ unit: 'binary', maxLength: 30 }),
        async (name, text) => {
          const before = await app.database.database.prisma.note.count();
          const response = await calls[name]!(text);
          expect(response.status).toBeLessThan(500);
          const body = (await response.json()) as { result?: { isError?: boolean } };
          expect(JSON.stringify(body)).not.toMatch(/prisma|invalid byte sequence/i);
          const after = await app.database.database.prisma.note.count();
          const created =
            name.startsWith('notes_create') && body.result !== undefined && !body.result.isError;
          expect(after).toBe(created ? before + 1 : before);
        },
      ),
      { numRuns: 80 },
    );
  }, 120_000);
});
