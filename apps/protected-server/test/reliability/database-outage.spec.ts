// The protected server while its PostgreSQL is away, the outage made by a TCP proxy between the server and its real
// PostgreSQL: the REST route answers 503 `temporarily_unavailable` with `Retry-After` (RFC 6749 5.2 body, no
// challenge: it is not an authorization decision), an MCP tool answers a tool error that says when to retry (MCP
// reports a tool's failure in its result), /readyz is 503 and /healthz 200; tokens keep being checked; once
// PostgreSQL is back the same requests succeed with no restart, and nothing was written meanwhile.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  postgresServerAvailable,
  startDatabase,
  startFaultProxy,
  startTestAuthorizationServer,
  type FaultProxy,
  type TestAuthorizationServer,
  type TestDatabase,
} from '@portcullis/testing';
import { callTool, rpcResult } from '../support/mcp-requests.js';
import { startProtectedServer, type ProtectedServer } from '../support/protected-server.harness.js';

const describeWithPostgres = postgresServerAvailable() ? describe : describe.skip;

describeWithPostgres('the protected server while PostgreSQL is away', () => {
  let as: TestAuthorizationServer;
  let database: TestDatabase;
  let proxy: FaultProxy;
  let app: ProtectedServer;
  let token: string;
  beforeAll(async () => {
    as = await startTestAuthorizationServer({ audience: 'set per token' });
    database = await startDatabase();
    const target = new URL(database.url!);
    proxy = await startFaultProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const url = proxy.via(database.url!);
    app = await startProtectedServer({
      authorizationServer: as.issuer,
      database: { ...database, url, target: { url } },
    });
    token = await as.mint({ claims: { aud: app.resource, sub: 'writer', scope: 'notes' } });
  });
  afterAll(async () => {
    await app?.close();
    await proxy?.close();
    await database?.stop();
    await as?.close();
  });

  const listNotes = () => fetch(`${app.url}/api/notes`, { headers: { authorization: `Bearer ${token}` } });

  it('answers 503 with Retry-After on REST, a retry-later tool error on MCP, and recovers by itself', async () => {
    expect((await listNotes()).status).toBe(200);

    await proxy.down();
    try {
      const started = performance.now();
      const refused = await listNotes();
      expect(performance.now() - started).toBeLessThan(2_500);
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('5');
      expect(refused.headers.get('www-authenticate')).toBeNull();
      expect(await refused.json()).toEqual({
        error: 'temporarily_unavailable',
        error_description: 'the service cannot reach its database; retry later',
      });

      const tool = await rpcResult(
        await callTool(app, token, 'notes_create', { title: 'during the outage' }),
      );
      expect(tool.result).toMatchObject({
        isError: true,
        content: [
          { type: 'text', text: 'The notes service is temporarily unavailable; try again in 5 seconds.' },
        ],
      });
      // The token is still checked: a bad one is still a 401, not a 503.
      const forged = await fetch(`${app.url}/api/notes`, {
        headers: { authorization: 'Bearer not-a-token' },
      });
      expect(forged.status).toBe(401);

      expect((await fetch(`${app.url}/readyz`)).status).toBe(503);
      expect((await fetch(`${app.url}/healthz`)).status).toBe(200);
    } finally {
      await proxy.up();
    }

    const deadline = performance.now() + 5_000;
    while ((await fetch(`${app.url}/readyz`)).status !== 200) {
      expect(performance.now()).toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect((await listNotes()).status).toBe(200);
    expect(await database.database.prisma.note.count({ where: { title: 'during the outage' } })).toBe(0);
  });
});
