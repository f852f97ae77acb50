import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { HeadlessUserAgent } from '@portcullis/testing';
import {
  authorizationRequest,
  authorize,
  redeem,
  startAuthorizationServer,
  type AuthorizationServerFixture,
} from '../support/authorization-server.fixture.js';

describe('the UserInfo endpoint refuses', () => {
  let as: AuthorizationServerFixture;
  let withOpenId: string;
  let withoutOpenId: string;
  beforeAll(async () => {
    as = await startAuthorizationServer();
    const client = await as.createClient();
    const user = await as.createUser();
    const ua = new HeadlessUserAgent();
    for (const scope of ['openid notes:read', 'notes:read']) {
      const request = authorizationRequest(as, client, { scope });
      const token = await redeem(as, client, await authorize(ua, request, user, client), request);
      if (scope.includes('openid')) withOpenId = token.body.access_token as string;
      else withoutOpenId = token.body.access_token as string;
    }
  });
  afterAll(async () => {
    await as?.close();
  });

  const userinfo = (authorization?: string) =>
    fetch(`${as.app.url}/userinfo`, { headers: authorization ? { authorization } : {} });

  it('a request without a bearer token, with 401 invalid_token and a Bearer challenge', async () => {
    const response = await userinfo();
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
    expect(((await response.json()) as { error: string }).error).toBe('invalid_token');
  });

  it('a token that is not one of its own', async () => {
    const response = await userinfo(`Bearer ${withOpenId.slice(0, -4)}AAAA`);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain('invalid_token');
  });

  it('a token without the openid scope, with 403 insufficient_scope', async () => {
    const response = await userinfo(`Bearer ${withoutOpenId}`);
    expect(response.status).toBe(403);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer error="insufficient_scope"/);
  });

  it('a revoked token', async () => {
    expect((await userinfo(`Bearer ${withOpenId}`)).status).toBe(200);
    await as.prisma.accessToken.updateMany({ data: { revokedAt: new Date() } });
    const response = await userinfo(`Bearer ${withOpenId}`);
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: string }).error).toBe('invalid_token');
  });
});
