import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { protectedResourceMetadataUrls } from '@portcullis/protocol';
import { REVISIONS, type RevisionId } from '@portcullis/revisions';
import {
  startDatabase,
  startTestAuthorizationServer,
  type TestAuthorizationServer,
  type TestDatabase,
} from '@portcullis/testing';
import { bearerChallengeOf, callTool, modernMessage, postMcp, toolJson } from '../support/mcp-requests.js';
import { startProtectedServer, type ProtectedServer } from '../support/protected-server.harness.js';

/**
 * What each revision's resource server does differently, read off its authorization page: the `scope` parameter
 * of challenges comes with the scope challenge of 2025-11-25 ("Protected Resource Metadata Discovery Requirements",
 * "Runtime Insufficient Scope Errors"; absent from 2025-06-18). Typed by revision, so a new revision cannot be
 * accepted without a row here.
 */
const EXPECTED: Record<RevisionId, { readonly scopeInChallenges: boolean }> = {
  '2025-06-18': { scopeInChallenges: false },
  '2025-11-25': { scopeInChallenges: true },
  '2026-07-28': { scopeInChallenges: true },
};

describe.each(REVISIONS)('the protected server under SPEC_REVISION=%s', (revision) => {
  const { scopeInChallenges } = EXPECTED[revision];
  let as: TestAuthorizationServer;
  let database: TestDatabase;
  let app: ProtectedServer;

  beforeAll(async () => {
    as = await startTestAuthorizationServer({ audience: 'set per token' });
    database = await startDatabase();
    app = await startProtectedServer({
      authorizationServer: as.issuer,
      database,
      env: { SPEC_REVISION: revision },
    });
  });
  afterAll(async () => {
    await app?.close();
    await database?.stop();
    await as?.close();
  });

  it('boots, publishes its metadata and serves a tool call with a sufficient token', async () => {
    const metadataUrl = protectedResourceMetadataUrls(app.resource)[0]!;
    const metadata = await fetch(metadataUrl);
    expect(metadata.status).toBe(200);
    expect(await metadata.json()).toMatchObject({
      resource: app.resource,
      authorization_servers: [as.issuer],
    });

    const token = await as.mint({ claims: { aud: app.resource, scope: 'notes:read notes:write' } });
    const note = await toolJson<{ title: string }>(
      await callTool(app, token, 'notes_create', { title: revision }),
    );
    expect(note.title).toBe(revision);
  });

  it(`always carries resource_metadata in the 401 challenge, and scope ${scopeInChallenges ? 'too' : 'not'}`, async () => {
    const challenge = bearerChallengeOf(await postMcp(app, modernMessage('tools/list')));
    expect(challenge.params).toEqual({
      resource_metadata: protectedResourceMetadataUrls(app.resource)[0],
      ...(scopeInChallenges ? { scope: 'notes:read notes:write' } : {}),
    });
  });

  it(`refuses an insufficient token with 403 insufficient_scope, ${scopeInChallenges ? 'naming' : 'not naming'} the scope`, async () => {
    const before = await database.database.prisma.note.count();
    const token = await as.mint({ claims: { aud: app.resource, scope: 'notes:read' } });
    const response = await callTool(app, token, 'notes_create', { title: 'x' });
    expect(response.status).toBe(403);
    const challenge = bearerChallengeOf(response);
    expect(challenge.params['error']).toBe('insufficient_scope');
    expect(challenge.params['scope']).toBe(scopeInChallenges ? 'notes:write' : undefined);
    expect(await database.database.prisma.note.count()).toBe(before);
  });
});
