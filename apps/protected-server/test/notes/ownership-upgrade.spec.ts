import { afterEach, describe, expect, it } from '@jest/globals';
import { startDatabase, startTestAuthorizationServer, type TestDatabase } from '@portcullis/testing';
import { callTool, toolJson } from '../support/mcp-requests.js';
import { startProtectedServer } from '../support/protected-server.harness.js';

// Notes written before ownership named the issuer have none: with one trusted issuer they are its users' and are
// given it at boot; with several the owner cannot be told, and they stay unattributed.
describe('notes from before issuer-scoped ownership', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function legacyDatabase(): Promise<TestDatabase> {
    const database = await startDatabase();
    cleanups.push(() => database.stop());
    await database.database.prisma.note.create({ data: { owner: 'old-user', title: 'written last year' } });
    return database;
  }

  it('are given the only trusted issuer at boot, and their owner sees them again', async () => {
    const database = await legacyDatabase();
    const as = await startTestAuthorizationServer({ audience: 'set per token' });
    cleanups.push(() => as.close());
    const app = await startProtectedServer({ authorizationServer: as.issuer, database });
    cleanups.push(() => app.close());
    const [note] = await database.database.prisma.note.findMany();
    expect(note?.issuer).toBe(as.issuer);
    const token = await as.mint({ claims: { aud: app.resource, sub: 'old-user', scope: 'notes' } });
    const listed = await toolJson<{ title: string }[]>(await callTool(app, token, 'notes_list'));
    expect(listed.map((n) => n.title)).toEqual(['written last year']);
  });

  it('stay unattributed where several issuers are trusted', async () => {
    const database = await legacyDatabase();
    const [one, two] = [
      await startTestAuthorizationServer({ audience: 'set per token' }),
      await startTestAuthorizationServer({ audience: 'set per token' }),
    ];
    cleanups.push(
      () => one.close(),
      () => two.close(),
    );
    const app = await startProtectedServer({
      authorizationServer: one.issuer,
      env: { EXTRA_AUTHORIZATION_SERVERS: two.issuer },
      database,
    });
    cleanups.push(() => app.close());
    const [note] = await database.database.prisma.note.findMany();
    expect(note?.issuer).toBeNull();
  });
});
