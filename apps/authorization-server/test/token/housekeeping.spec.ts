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
});
