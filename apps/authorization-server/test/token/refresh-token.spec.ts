import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { HeadlessUserAgent } from '@portcullis/testing';
import {
  authorizationRequest,
  authorize,
  redeem,
  startAuthorizationServer,
  tokenRequest,
  type AuthorizationServerFixture,
  type TestClient,
} from '../support/authorization-server.fixture.js';

describe('refresh tokens', () => {
  let as: AuthorizationServerFixture;
  let user: { username: string; password: string };
  beforeAll(async () => {
    as = await startAuthorizationServer();
    user = await as.createUser();
  });
  afterAll(async () => {
    await as?.close();
  });

  async function tokensFor(client: TestClient, scope = 'notes:read notes:write') {
    const request = authorizationRequest(as, client, { scope });
    const callback = await authorize(new HeadlessUserAgent(), request, user, client);
    const response = await redeem(as, client, callback, request);
    expect(response.status).toBe(200);
    return response.body as { access_token: string; refresh_token: string; scope: string };
  }

  const refresh = (client: TestClient, token: string, extra: Record<string, string> = {}) =>
    tokenRequest(as, {
      grant_type: 'refresh_token',
      refresh_token: token,
      client_id: client.clientId,
      ...extra,
    });

  it('rotates on every use', async () => {
    const client = await as.createClient();
    const first = await tokensFor(client);
    const second = await refresh(client, first.refresh_token, { resource: 'http://localhost:4100/mcp' });
    expect(second.status).toBe(200);
    expect(second.body.refresh_token).not.toBe(first.refresh_token);
    expect(second.body.scope).toBe('notes:read notes:write');
    const third = await refresh(client, second.body.refresh_token as string);
    expect(third.status).toBe(200);
  });

  it('kills the whole family when a consumed token is presented again', async () => {
    const client = await as.createClient();
    const first = await tokensFor(client);
    const rotated = await refresh(client, first.refresh_token);
    expect(rotated.status).toBe(200);

    const reuse = await refresh(client, first.refresh_token);
    expect(reuse.body).toEqual({ error: 'invalid_grant', error_description: 'refresh token is invalid' });
    const descendant = await refresh(client, rotated.body.refresh_token as string);
    expect(descendant.body.error).toBe('invalid_grant');
    const tokens = await as.prisma.accessToken.findMany({ where: { clientId: client.clientId } });
    expect(tokens.length).toBe(2);
    expect(tokens.every((token) => token.revokedAt !== null)).toBe(true);
  });

  it('lets exactly one of 20 concurrent refreshes with one token succeed', async () => {
    const client = await as.createClient();
    const first = await tokensFor(client);
    const results = await Promise.all(Array.from({ length: 20 }, () => refresh(client, first.refresh_token)));
    expect(results.filter((result) => result.status === 200)).toHaveLength(1);
    expect(results.filter((result) => result.body.error === 'invalid_grant')).toHaveLength(19);
  });

  it.each([
    ['a widened scope', { scope: 'notes:read notes:write' }, 'invalid_scope'],
    ['another resource', { resource: 'https://other.example/mcp' }, 'invalid_target'],
    ['a malformed scope', { scope: 'notes:read "x"' }, 'invalid_scope'],
  ])(
    'refuses %s without using the refresh token up: the corrected retry works and counts no reuse',
    async (_name, extra, error) => {
      const client = await as.createClient();
      const first = await tokensFor(client, 'notes:read');
      const before = await as.counts();
      const refused = await refresh(client, first.refresh_token, extra);
      expect(refused.status).toBe(400);
      expect(refused.body.error).toBe(error);
      const after = await as.counts();
      expect(after.accessTokens).toBe(before.accessTokens);
      expect(after.refreshTokens).toBe(before.refreshTokens);
      const [grant] = await as.prisma.authorizationGrant.findMany({ where: { clientId: client.clientId } });
      const stored = await as.prisma.refreshToken.findMany({ where: { grantId: grant!.id } });
      expect(stored.map((token) => token.consumedAt)).toEqual([null]);

      const retried = await refresh(client, first.refresh_token);
      expect(retried.status).toBe(200);
      const grants = await as.prisma.authorizationGrant.findMany({ where: { clientId: client.clientId } });
      expect(grants.map((grant) => grant.revokedAt)).toEqual([null]);
    },
  );

  it('may narrow the scope and never widen it', async () => {
    const client = await as.createClient();
    const first = await tokensFor(client, 'notes:read');
    const widened = await refresh(client, first.refresh_token, { scope: 'notes:read notes:write' });
    expect(widened.body).toEqual({
      error: 'invalid_scope',
      error_description: 'scope exceeds the original grant: notes:write',
    });

    const second = await tokensFor(client, 'notes:read notes:write');
    const narrowed = await refresh(client, second.refresh_token, { scope: 'notes:read' });
    expect(narrowed.status).toBe(200);
    expect(narrowed.body.scope).toBe('notes:read');
    const back = await refresh(client, narrowed.body.refresh_token as string);
    expect(back.body.scope).toBe('notes:read notes:write');
  });

  it('is bound to its client and its resource', async () => {
    const client = await as.createClient();
    const other = await as.createClient();
    const tokens = await tokensFor(client);
    expect((await refresh(other, tokens.refresh_token)).body.error).toBe('invalid_grant');
    const switched = await refresh(client, tokens.refresh_token, { resource: 'https://other.example/mcp' });
    expect(switched.body.error).toBe('invalid_target');
  });

  it('ends with the login session unless offline_access was granted', async () => {
    const client = await as.createClient();
    const online = await tokensFor(client, 'notes:read');
    const offline = await tokensFor(client, 'notes:read offline_access');
    await as.prisma.loginSession.updateMany({ data: { revokedAt: new Date() } });

    const ended = await refresh(client, online.refresh_token);
    expect(ended.body.error).toBe('invalid_grant');
    const kept = await refresh(client, offline.refresh_token);
    expect(kept.status).toBe(200);
  });

  it('expires after the idle lifetime', async () => {
    const client = await as.createClient();
    const tokens = await tokensFor(client);
    await as.prisma.refreshToken.updateMany({
      where: { consumedAt: null },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    const response = await refresh(client, tokens.refresh_token);
    expect(response.body.error).toBe('invalid_grant');
  });
});
