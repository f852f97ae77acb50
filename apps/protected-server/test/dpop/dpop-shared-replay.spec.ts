import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  freePort,
  startDatabase,
  startRedis,
  startTestAuthorizationServer,
  type TestAuthorizationServer,
  type TestDatabase,
} from '@portcullis/testing';
import { createDpopKey, dpopProof, type DpopKey } from '../support/dpop-proofs.js';
import { modernMessage } from '../support/mcp-requests.js';
import { startProtectedServer, type ProtectedServer } from '../support/protected-server.harness.js';

const redis = await startRedis();
const describeWithRedis = redis.redis ? describe : describe.skip;

const createNote = (title: string) =>
  modernMessage('tools/call', { name: 'notes_create', arguments: { title } });

/** POSTs a note creation to one instance's socket, addressed (token, proof) to the public resource. */
function send(instance: ProtectedServer, token: string, proof: string, title: string): Promise<Response> {
  return fetch(`${instance.url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'notes_create',
      authorization: `DPoP ${token}`,
      dpop: proof,
    },
    body: JSON.stringify(createNote(title)),
  });
}

describeWithRedis('DPoP replay detection across instances sharing Redis (RFC 9449 Section 11.1)', () => {
  let as: TestAuthorizationServer;
  let database: TestDatabase;
  let first: ProtectedServer;
  let second: ProtectedServer;
  let resource: string;
  let key: DpopKey;
  let token: string;

  beforeAll(async () => {
    as = await startTestAuthorizationServer({ audience: 'set per token' });
    database = await startDatabase();
    // Two instances behind one public name: both are configured with the first one's URL as the resource.
    const port = await freePort();
    resource = `http://127.0.0.1:${port}/mcp`;
    const env = { EXTENSIONS: 'dpop', REDIS_URL: redis.redis!.url, RESOURCE_URI: resource };
    first = await startProtectedServer({ authorizationServer: as.issuer, database, env });
    second = await startProtectedServer({ authorizationServer: as.issuer, database, env });
    key = await createDpopKey();
    token = await as.mint({ claims: { aud: resource, scope: 'notes:write', cnf: { jkt: key.jkt } } });
  });
  afterAll(async () => {
    await first?.close();
    await second?.close();
    await database?.stop();
    await as?.close();
  });

  const notes = () => database.database.prisma.note.count();

  it('checks htu against the configured public resource, whichever instance’s socket the request reached', async () => {
    const proof = await dpopProof(key, { method: 'POST', url: resource, token });
    expect((await send(second, token, proof, 'through the second')).status).toBe(200);
    const ownAddress = await dpopProof(key, { method: 'POST', url: `${second.url}/mcp`, token });
    expect((await send(second, token, ownAddress, 'named by socket')).status).toBe(401);
    expect(await notes()).toBe(1);
    await database.database.prisma.note.deleteMany();
  });

  it('refuses a proof replayed to another instance, and the replay persists nothing', async () => {
    const proof = await dpopProof(key, { method: 'POST', url: resource, token });
    expect((await send(first, token, proof, 'original')).status).toBe(200);
    const replay = await send(second, token, proof, 'replayed');
    expect(replay.status).toBe(401);
    expect(replay.headers.get('www-authenticate')).toContain('DPoP error="invalid_dpop_proof"');
    expect(await notes()).toBe(1);
    await database.database.prisma.note.deleteMany();
  });
});
