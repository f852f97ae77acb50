import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestAuthorizationServer, type TestAuthorizationServer } from '@portcullis/testing';
import { createDpopKey, dpopProof, type DpopKey } from '../support/dpop-proofs.js';
import { countNotes, modernMessage, postMcp } from '../support/mcp-requests.js';
import { startProtectedServer, type ProtectedServer } from '../support/protected-server.harness.js';

const createNote = (title: string) =>
  modernMessage('tools/call', { name: 'notes_create', arguments: { title } });

describe('DPoP-bound opaque tokens, introspected (RFC 9449 Section 6.2, RFC 7662)', () => {
  const client = { id: 'protected-server', secret: randomBytes(24).toString('base64url') };
  let as: TestAuthorizationServer;
  let app: ProtectedServer;
  let key: DpopKey;

  beforeAll(async () => {
    as = await startTestAuthorizationServer({ audience: 'set per token', introspectionClient: client });
    app = await startProtectedServer({
      authorizationServer: as.issuer,
      env: {
        EXTENSIONS: 'dpop',
        INTROSPECTION_CLIENT_ID: client.id,
        INTROSPECTION_CLIENT_SECRET: client.secret,
      },
    });
    key = await createDpopKey();
  });
  afterAll(async () => {
    await app?.close();
    await as?.close();
  });

  /** An opaque token the authorization server introspects as active, with `extra` members. */
  function opaque(extra: Record<string, unknown>): string {
    const token = randomBytes(32).toString('base64url');
    const now = Math.floor(Date.now() / 1000);
    as.setIntrospection(token, {
      active: true,
      iss: as.issuer,
      sub: 'user-1',
      client_id: 'client-1',
      aud: app.resource,
      scope: 'notes:write',
      iat: now,
      exp: now + 300,
      ...extra,
    });
    return token;
  }

  const sendDpop = async (token: string) =>
    postMcp(app, createNote('introspected'), {
      headers: {
        authorization: `DPoP ${token}`,
        dpop: await dpopProof(key, { method: 'POST', url: app.mcpUrl, token }),
      },
    });

  it('accepts a token introspected as token_type DPoP with cnf.jkt, with its proof', async () => {
    const response = await sendDpop(opaque({ token_type: 'DPoP', cnf: { jkt: key.jkt } }));
    expect(response.status).toBe(200);
    expect(await countNotes(app)).toBe(1);
    await app.database.database.prisma.note.deleteMany();
  });

  it('checks the proof on every request, though the token’s verdict is cached', async () => {
    const token = opaque({ token_type: 'DPoP', cnf: { jkt: key.jkt } });
    expect((await sendDpop(token)).status).toBe(200);
    const again = await postMcp(app, createNote('no proof'), { headers: { authorization: `DPoP ${token}` } });
    expect(again.status).toBe(401);
    const stolen = await postMcp(app, createNote('stolen'), { token });
    expect(stolen.status).toBe(401);
    expect(await countNotes(app)).toBe(1);
    await app.database.database.prisma.note.deleteMany();
  });

  it('refuses a token introspected as token_type DPoP without a cnf, and persists nothing', async () => {
    const response = await sendDpop(opaque({ token_type: 'DPoP' }));
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: string }).error).toBe('invalid_token');
    expect(await countNotes(app)).toBe(0);
  });

  it('refuses a bound introspected token presented as Bearer (RFC 9449 Section 7.2)', async () => {
    const response = await postMcp(app, createNote('bearer'), {
      token: opaque({ token_type: 'Bearer', cnf: { jkt: key.jkt } }),
    });
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: string }).error).toBe('invalid_token');
    expect(await countNotes(app)).toBe(0);
  });
});
