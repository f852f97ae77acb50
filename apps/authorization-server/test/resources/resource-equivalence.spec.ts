import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { HeadlessUserAgent } from '@portcullis/testing';
import { decodeJwt } from 'jose';
import {
  authorizationRequest,
  authorize,
  redeem,
  startAuthorizationServer,
  tokenRequest,
  type AuthorizationServerFixture,
  type TestClient,
} from '../support/authorization-server.fixture.js';

// RFC 3986 6.2.3: for http and https an empty path and `/` are one URI. A resource registered host-only is the same
// resource when a client names it with `/`, and its tokens carry the registered form as `aud` (RFC 8707 2), so the
// resource server's exact audience check holds.
describe('a host-only resource named with a trailing slash', () => {
  const ROOT = 'https://mcp.example.com';
  let as: AuthorizationServerFixture;
  let user: { username: string; password: string };
  let client: TestClient;
  beforeAll(async () => {
    as = await startAuthorizationServer({
      env: {
        RESOURCES: JSON.stringify([{ uri: ROOT, name: 'Root resource', scopes_supported: ['notes:read'] }]),
      },
    });
    user = await as.createUser();
    client = await as.createClient();
  });
  afterAll(async () => {
    await as?.close();
  });

  it('is authorized, redeemed and refreshed as the registered resource, with the registered form as aud', async () => {
    const request = authorizationRequest(as, client, { resource: `${ROOT}/`, scope: 'notes:read' });
    const callback = await authorize(new HeadlessUserAgent(), request, user, client);
    const tokens = await redeem(as, client, callback, request, { resource: `${ROOT}/` });
    expect(tokens.status).toBe(200);
    expect(decodeJwt(tokens.body['access_token'] as string).aud).toBe(ROOT);
    const grants = await as.prisma.authorizationGrant.findMany({ where: { clientId: client.clientId } });
    expect(grants.map((grant) => grant.resource)).toEqual([ROOT]);

    const refreshed = await tokenRequest(as, {
      grant_type: 'refresh_token',
      refresh_token: tokens.body['refresh_token'] as string,
      client_id: client.clientId,
      resource: `${ROOT}/`,
    });
    expect(refreshed.status).toBe(200);
    expect(decodeJwt(refreshed.body['access_token'] as string).aud).toBe(ROOT);
  });

  it('is still refused with another path (only the empty path and / are one)', async () => {
    const before = await as.counts();
    const request = authorizationRequest(as, client, { resource: `${ROOT}//`, scope: 'notes:read' });
    const response = await new HeadlessUserAgent().get(request.url);
    expect(response.status).toBe(303);
    const location = new URL(response.location!);
    expect(`${location.origin}${location.pathname}`).toBe(client.redirectUri);
    expect(location.searchParams.get('error')).toBe('invalid_target');
    expect(await as.counts()).toEqual(before);
  });
});
