import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startDatabase, type TestDatabase } from '@portcullis/testing';
import { protectedResourceMetadataUrls } from '@portcullis/protocol';
import { bearerChallengeOf, callTool, modernMessage, postMcp } from '../support/mcp-requests.js';
import { startProtectedServer, type ProtectedServer } from '../support/protected-server.harness.js';
import {
  startTestAuthorizationServer,
  type TestAuthorizationServer,
} from '@portcullis/testing';

describe('SPEC_REVISION selects the revision-dependent challenge behaviour', () => {
  let as: TestAuthorizationServer;
  let database: TestDatabase;
  let earlier: ProtectedServer;
  let later: ProtectedServer;

  beforeAll(async () => {
    as = await startTestAuthorizationServer({ audience: 'set per token' });
    database = await startDatabase();
    earlier = await startProtectedServer({
      authorizationServer: as.issuer,
      database,
      env: { SPEC_REVISION: '2025-06-18' },
    });
    later = await startProtectedServer({
      authorizationServer: as.issuer,
      database,
      env: { SPEC_REVISION: '2026-07-28' },
    });
  });
  afterAll(async () => {
    await earlier?.close();
    await later?.close();
    await database?.stop();
    await as?.close();
  });

  it('always carries resource_metadata in the 401 challenge, and scope only under 2026-07-28', async () => {
    const old = bearerChallengeOf(await postMcp(earlier, modernMessage('tools/list')));
    expect(old.params).toEqual({ resource_metadata: protectedResourceMetadataUrls(earlier.resource)[0] });

    const current = bearerChallengeOf(await postMcp(later, modernMessage('tools/list')));
    expect(current.params).toEqual({
      resource_metadata: protectedResourceMetadataUrls(later.resource)[0],
      scope: 'notes:read notes:write',
    });
  });

  it('refuses an insufficient token with 403 insufficient_scope under both, naming the scope only under 2026-07-28', async () => {
    const tokenFor = (app: ProtectedServer) =>
      as.mint({ claims: { aud: app.resource, scope: 'notes:read' } });
    const old = await callTool(earlier, await tokenFor(earlier), 'notes_create', { title: 'x' });
    expect(old.status).toBe(403);
    expect(bearerChallengeOf(old).params['error']).toBe('insufficient_scope');
    expect(bearerChallengeOf(old).params['scope']).toBeUndefined();

    const current = await callTool(later, await tokenFor(later), 'notes_create', { title: 'x' });
    expect(current.status).toBe(403);
    expect(bearerChallengeOf(current).params['scope']).toBe('notes:write');
    expect(await database.database.prisma.note.count()).toBe(0);
  });
});
