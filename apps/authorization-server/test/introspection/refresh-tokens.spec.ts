import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  RESOURCE,
  startAuthorizationServer,
  tokenRequest,
  type AuthorizationServerFixture,
  type TestClient,
} from '../support/authorization-server.fixture.js';
import { basic, issueTokens, postForm } from './introspection.helpers.js';

describe('introspection of refresh tokens', () => {
  let as: AuthorizationServerFixture;
  let owner: TestClient;
  let other: TestClient;
  let user: { id: string; username: string; password: string };
  beforeAll(async () => {
    as = await startAuthorizationServer();
    owner = await as.createClient({ confidential: 'client_secret_post' });
    other = await as.createClient({ confidential: 'client_secret_basic' });
    user = await as.createUser();
  });
  afterAll(async () => {
    await as?.close();
  });

  /** Introspects as `owner` (client_secret_post, as it was created) or as `other` (client_secret_basic). */
  const introspect = (client: TestClient, token: string) =>
    client === owner
      ? postForm(as, 'introspect', {
          token,
          token_type_hint: 'refresh_token',
          client_id: owner.clientId,
          client_secret: owner.clientSecret,
        })
      : postForm(as, 'introspect', { token, token_type_hint: 'refresh_token' }, basic(client));
  const refresh = (token: string) =>
    tokenRequest(as, {
      grant_type: 'refresh_token',
      refresh_token: token,
      client_id: owner.clientId,
      client_secret: owner.clientSecret,
    });

  it('describes an unconsumed one to the client it was issued to, typed so no resource server takes it for a bearer token', async () => {
    const tokens = await issueTokens(as, owner, user);
    const row = await as.prisma.refreshToken.findFirstOrThrow({
      where: { consumedAt: null },
      orderBy: { createdAt: 'desc' },
    });
    const response = await introspect(owner, tokens.refresh_token);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      active: true,
      scope: 'notes:read notes:write',
      client_id: owner.clientId,
      sub: user.id,
      aud: RESOURCE,
      exp: Math.floor(row.expiresAt.getTime() / 1000),
      iat: Math.floor(row.createdAt.getTime() / 1000),
      iss: as.issuer,
      token_type: 'refresh_token',
    });
  });

  it('answers inactive to any other client', async () => {
    const tokens = await issueTokens(as, owner, user);
    expect((await introspect(owner, tokens.refresh_token)).body.active).toBe(true);
    expect(await introspect(other, tokens.refresh_token)).toMatchObject({ text: '{"active":false}' });
  });

  it('answers inactive once it has been used (rotated)', async () => {
    const tokens = await issueTokens(as, owner, user);
    const rotated = await refresh(tokens.refresh_token);
    expect(rotated.status).toBe(200);
    expect((await introspect(owner, tokens.refresh_token)).text).toBe('{"active":false}');
    expect((await introspect(owner, rotated.body.refresh_token as string)).body.active).toBe(true);
  });

  it('answers inactive once expired', async () => {
    const tokens = await issueTokens(as, owner, user);
    await as.prisma.refreshToken.updateMany({
      where: { consumedAt: null },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    expect((await introspect(owner, tokens.refresh_token)).text).toBe('{"active":false}');
  });

  it('answers inactive once its family is revoked (a consumed token presented again)', async () => {
    const tokens = await issueTokens(as, owner, user);
    const rotated = await refresh(tokens.refresh_token);
    expect((await refresh(tokens.refresh_token)).body.error).toBe('invalid_grant');
    expect((await introspect(owner, rotated.body.refresh_token as string)).text).toBe('{"active":false}');
    // The access tokens of the family went with it.
    const access = await postForm(
      as,
      'introspect',
      { token: rotated.body.access_token as string },
      basic(other),
    );
    expect(access.text).toBe('{"active":false}');
  });

  it('answers inactive once the login session of a family without offline_access has ended', async () => {
    const tokens = await issueTokens(as, owner, user, 'notes:read');
    const offline = await issueTokens(as, owner, user, 'notes:read offline_access');
    await as.prisma.loginSession.updateMany({ data: { revokedAt: new Date() } });
    expect((await introspect(owner, tokens.refresh_token)).text).toBe('{"active":false}');
    expect((await introspect(owner, offline.refresh_token)).body.active).toBe(true);
  });
});
