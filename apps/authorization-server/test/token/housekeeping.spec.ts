import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { HousekeepingRepository, HousekeepingService } from '@portcullis/authorization';
import { HeadlessUserAgent } from '@portcullis/testing';
import {
  authorizationRequest,
  authorize,
  redeem,
  startAuthorizationServer,
  tokenRequest,
  type AuthorizationServerFixture,
} from '../support/authorization-server.fixture.js';

describe('housekeeping', () => {
  let as: AuthorizationServerFixture;
  beforeAll(async () => {
    as = await startAuthorizationServer();
  });
  afterAll(async () => {
    await as?.close();
  });

  it('deletes expired rows but keeps a consumed refresh token while its grant lives, so reuse is still caught', async () => {
    const client = await as.createClient();
    const user = await as.createUser();
    const request = authorizationRequest(as, client);
    const callback = await authorize(new HeadlessUserAgent(), request, user, client);
    const tokens = (await redeem(as, client, callback, request)).body as { refresh_token: string };
    const rotated = await tokenRequest(as, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: client.clientId,
    });
    expect(rotated.status).toBe(200);

    const housekeeping = new HousekeepingService(new HousekeepingRepository(as.prisma));
    const dayLater = new Date(Date.now() + 86_400_000);
    const swept = await housekeeping.sweep(dayLater);
    expect(swept.authorizationCodes).toBeGreaterThanOrEqual(1);
    expect(swept.accessTokens).toBeGreaterThanOrEqual(2);
    expect(swept.grants).toBe(0);

    const reuse = await tokenRequest(as, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: client.clientId,
    });
    expect(reuse.body.error).toBe('invalid_grant');
    const grant = await as.prisma.authorizationGrant.findFirstOrThrow({
      where: { clientId: client.clientId },
    });
    expect(grant.revokedAt).not.toBeNull();

    const afterExpiry = await housekeeping.sweep(new Date(grant.absoluteExpiresAt.getTime() + 2 * 3_600_000));
    expect(afterExpiry.grants).toBeGreaterThanOrEqual(1);
    expect(await as.prisma.refreshToken.count({ where: { grantId: grant.id } })).toBe(0);
  });

  it('deletes history larger than a batch, batch after batch, by index, and leaves live rows alone', async () => {
    const client = await as.createClient();
    const user = await as.createUser();
    // 12,000 expired access token records, 2,500 expired grants each with a used refresh token and a code: more
    // than one batch of each (5,000 rows, 1,000 grants).
    await as.prisma.$executeRawUnsafe(
      `INSERT INTO "access_tokens" ("jti", "client_id", "subject", "audience", "scopes", "expires_at")
       SELECT 'old-' || i, $1, 'someone', 'http://localhost:4100/mcp', ARRAY['notes:read'], now() - interval '2 days'
       FROM generate_series(1, 12000) AS i`,
      client.clientId,
    );
    await as.prisma.$executeRawUnsafe(
      `INSERT INTO "grants" ("id", "client_id", "user_id", "resource", "scopes", "auth_time", "absolute_expires_at")
       SELECT gen_random_uuid(), $1, $2::uuid, 'http://localhost:4100/mcp', ARRAY['notes:read'],
              now() - interval '40 days', now() - interval '2 days'
       FROM generate_series(1, 2500)`,
      client.clientId,
      user.id,
    );
    await as.prisma.$executeRawUnsafe(
      `INSERT INTO "refresh_tokens" ("token_hash", "grant_id", "scopes", "expires_at", "consumed_at")
       SELECT 'old-' || g."id", g."id", g."scopes", g."absolute_expires_at", g."absolute_expires_at"
       FROM "grants" AS g WHERE g."client_id" = $1`,
      client.clientId,
    );
    // And one live authorization of the same client, which must survive the sweep whole.
    const request = authorizationRequest(as, client);
    const callback = await authorize(new HeadlessUserAgent(), request, user, client);
    const live = (await redeem(as, client, callback, request)).body as { refresh_token: string };

    const swept = await new HousekeepingService(new HousekeepingRepository(as.prisma)).sweep();

    expect(swept.accessTokens).toBe(12_000);
    expect(swept.grants).toBe(2_500);
    expect(await as.prisma.authorizationGrant.count({ where: { clientId: client.clientId } })).toBe(1);
    expect(await as.prisma.refreshToken.count({ where: { tokenHash: { startsWith: 'old-' } } })).toBe(0);
    expect(await as.prisma.accessToken.count({ where: { jti: { startsWith: 'old-' } } })).toBe(0);
    const refreshed = await tokenRequest(as, {
      grant_type: 'refresh_token',
      refresh_token: live.refresh_token,
      client_id: client.clientId,
    });
    expect(refreshed.status).toBe(200);
  });
});
