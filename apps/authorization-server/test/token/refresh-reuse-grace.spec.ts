// REFRESH_TOKEN_REUSE_GRACE: MCP clients running several processes over one credential store present one refresh
// token twice within seconds. Strict rotation (RFC 9700 4.14.2, the default) counts the second as reuse and revokes
// the family; within the operator's grace window the same client asking for the same resource, scope and key gets the
// very response of the first presentation, as long as its successor is unused. Anything else is still reuse.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { HeadlessUserAgent } from '@portcullis/testing';
import {
  authorizationRequest,
  authorize,
  redeem,
  RESOURCE,
  startAuthorizationServer,
  tokenRequest,
  type AuthorizationServerFixture,
  type TestClient,
} from '../support/authorization-server.fixture.js';

/** How the server stores a refresh token: its SHA-256, base64url. */
const tokenHash = (token: string) => createHash('sha256').update(token, 'utf8').digest('base64url');

type Tokens = { access_token: string; refresh_token: string; scope: string };

function fixtureHelpers(as: () => AuthorizationServerFixture) {
  return {
    async tokensFor(client: TestClient, user: { username: string; password: string }): Promise<Tokens> {
      const request = authorizationRequest(as(), client, { scope: 'notes:read notes:write' });
      const callback = await authorize(new HeadlessUserAgent(), request, user, client);
      const response = await redeem(as(), client, callback, request);
      expect(response.status).toBe(200);
      return response.body as Tokens;
    },
    refresh(client: TestClient, token: string, extra: Record<string, string> = {}) {
      return tokenRequest(as(), {
        grant_type: 'refresh_token',
        refresh_token: token,
        client_id: client.clientId,
        ...extra,
      });
    },
    async grantOf(token: string) {
      const row = await as().prisma.refreshToken.findUniqueOrThrow({
        where: { tokenHash: tokenHash(token) },
      });
      return as().prisma.authorizationGrant.findUniqueOrThrow({ where: { id: row.grantId } });
    },
  };
}

describe('refresh token reuse without a grace window (the default)', () => {
  let as: AuthorizationServerFixture;
  let user: { username: string; password: string };
  const { tokensFor, refresh, grantOf } = fixtureHelpers(() => as);
  beforeAll(async () => {
    as = await startAuthorizationServer();
    user = await as.createUser();
  });
  afterAll(async () => {
    await as?.close();
  });

  it('gives exactly one of 20 concurrent presentations a 200 and revokes the family for the rest', async () => {
    const client = await as.createClient();
    const first = await tokensFor(client, user);
    const results = await Promise.all(Array.from({ length: 20 }, () => refresh(client, first.refresh_token)));
    expect(results.filter((result) => result.status === 200)).toHaveLength(1);
    expect(results.filter((result) => result.body['error'] === 'invalid_grant')).toHaveLength(19);
    expect((await grantOf(first.refresh_token)).revokedAt).not.toBeNull();
    // Nothing is kept to give again.
    const grant = await grantOf(first.refresh_token);
    const rows = await as.prisma.refreshToken.findMany({ where: { grantId: grant.id } });
    expect(rows.every((row) => row.replay === null && row.successorHash === null)).toBe(true);
  });
});

describe('refresh token reuse within REFRESH_TOKEN_REUSE_GRACE=30', () => {
  let as: AuthorizationServerFixture;
  let user: { username: string; password: string };
  const { tokensFor, refresh, grantOf } = fixtureHelpers(() => as);
  beforeAll(async () => {
    as = await startAuthorizationServer({ env: { REFRESH_TOKEN_REUSE_GRACE: '30' } });
    user = await as.createUser();
  });
  afterAll(async () => {
    await as?.close();
  });

  it('gives all of 20 concurrent presentations one and the same response, from one stored rotation', async () => {
    const client = await as.createClient();
    const first = await tokensFor(client, user);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        refresh(client, first.refresh_token, index % 2 === 0 ? { resource: RESOURCE } : {}),
      ),
    );
    expect(results.map((result) => result.status)).toEqual(Array.from({ length: 20 }, () => 200));
    const bodies = new Set(results.map((result) => JSON.stringify(result.body)));
    expect(bodies.size).toBe(1);
    const [answer] = results.map((result) => result.body as Tokens);
    expect(answer!.refresh_token).not.toBe(first.refresh_token);

    const grant = await grantOf(first.refresh_token);
    expect(grant.revokedAt).toBeNull();
    expect(await as.prisma.refreshToken.count({ where: { grantId: grant.id } })).toBe(2);
    expect(await as.prisma.accessToken.count({ where: { grantId: grant.id } })).toBe(2);
    // The response is kept sealed: neither token is readable in the database.
    const rows = await as.prisma.refreshToken.findMany({ where: { grantId: grant.id } });
    const stored = JSON.stringify(rows);
    expect(stored).not.toContain(answer!.refresh_token);
    expect(stored).not.toContain(answer!.access_token);

    const next = await refresh(client, answer!.refresh_token);
    expect(next.status).toBe(200);
    expect((await grantOf(first.refresh_token)).revokedAt).toBeNull();
  });

  it('counts a presentation after the window as reuse and revokes the family', async () => {
    const client = await as.createClient();
    const first = await tokensFor(client, user);
    const rotated = await refresh(client, first.refresh_token);
    expect(rotated.status).toBe(200);
    await as.prisma.refreshToken.update({
      where: { tokenHash: tokenHash(first.refresh_token) },
      data: { consumedAt: new Date(Date.now() - 31_000) },
    });

    const late = await refresh(client, first.refresh_token);
    expect(late.status).toBe(400);
    expect(late.body).toEqual({ error: 'invalid_grant', error_description: 'refresh token is invalid' });
    expect((await grantOf(first.refresh_token)).revokedAt).not.toBeNull();
    expect((await refresh(client, rotated.body['refresh_token'] as string)).body['error']).toBe(
      'invalid_grant',
    );
  });

  it('counts a presentation after the successor was used as reuse and revokes the family', async () => {
    const client = await as.createClient();
    const first = await tokensFor(client, user);
    const rotated = await refresh(client, first.refresh_token);
    const onward = await refresh(client, rotated.body['refresh_token'] as string);
    expect(onward.status).toBe(200);

    const again = await refresh(client, first.refresh_token);
    expect(again.body['error']).toBe('invalid_grant');
    expect((await grantOf(first.refresh_token)).revokedAt).not.toBeNull();
    expect((await refresh(client, onward.body['refresh_token'] as string)).body['error']).toBe(
      'invalid_grant',
    );
  });

  it('counts a presentation asking for another scope within the window as reuse', async () => {
    const client = await as.createClient();
    const first = await tokensFor(client, user);
    const rotated = await refresh(client, first.refresh_token);
    expect(rotated.status).toBe(200);

    const narrowed = await refresh(client, first.refresh_token, { scope: 'notes:read' });
    expect(narrowed.body['error']).toBe('invalid_grant');
    expect((await grantOf(first.refresh_token)).revokedAt).not.toBeNull();
  });

  it('gives nothing to another client presenting the token, and leaves the family alone', async () => {
    const client = await as.createClient();
    const other = await as.createClient();
    const first = await tokensFor(client, user);
    const rotated = await refresh(client, first.refresh_token);
    expect(rotated.status).toBe(200);
    const before = await as.counts();

    const stolen = await refresh(other, first.refresh_token);
    expect(stolen.body).toEqual({ error: 'invalid_grant', error_description: 'refresh token is invalid' });
    expect(await as.counts()).toEqual(before);
    expect((await grantOf(first.refresh_token)).revokedAt).toBeNull();
    expect((await refresh(client, rotated.body['refresh_token'] as string)).status).toBe(200);
  });
});
