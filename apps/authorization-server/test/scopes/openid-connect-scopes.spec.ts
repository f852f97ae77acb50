// OpenID Connect's standard scopes (OIDC Core 5.4) at the authorization server, replaying ChatGPT's authorization
// request (`scope=openid email offline_access profile` with `resource`): granted as claims of the ID token, never as
// scopes of the access token for the resource nor at UserInfo (which the resource holding that token could ask);
// scope values nobody offers are still refused.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { UserRepository } from '@portcullis/authorization';
import { HeadlessUserAgent } from '@portcullis/testing';
import { decodeJwt } from 'jose';
import {
  authorizationRequest,
  authorize,
  PASSWORD,
  RESOURCE,
  redeem,
  settle,
  startAuthorizationServer,
  tokenRequest,
  type AuthorizationServerFixture,
  type TestClient,
} from '../support/authorization-server.fixture.js';

const CHATGPT_REDIRECT = 'https://chatgpt.com/connector_platform_oauth_redirect';
const CHATGPT_SCOPE = 'openid email offline_access profile';

describe("OpenID Connect's profile and email scopes", () => {
  let as: AuthorizationServerFixture;
  let chatgpt: TestClient;
  let users: UserRepository;
  beforeAll(async () => {
    as = await startAuthorizationServer();
    users = new UserRepository(as.prisma);
    chatgpt = await as.createClient({
      redirectUris: [CHATGPT_REDIRECT],
      confidential: 'client_secret_post',
      name: 'ChatGPT',
    });
  });
  afterAll(async () => {
    await as?.close();
  });

  const userinfo = async (accessToken: string) => {
    const response = await fetch(`${as.app.url}/userinfo`, {
      headers: { authorization: `Bearer ${accessToken}` },
    });
    expect(response.status).toBe(200);
    return (await response.json()) as Record<string, unknown>;
  };

  /** ChatGPT's authorization request, through sign-in and consent, and its token request. */
  async function chatgptTokens(username: string) {
    const request = authorizationRequest(as, chatgpt, { scope: CHATGPT_SCOPE });
    const callback = await authorize(
      new HeadlessUserAgent(),
      request,
      { username, password: PASSWORD },
      chatgpt,
    );
    expect(callback.searchParams.get('error')).toBeNull();
    const tokens = await redeem(as, chatgpt, callback, request, { client_secret: chatgpt.clientSecret });
    expect(tokens.status).toBe(200);
    return tokens.body as Record<string, string>;
  }

  it('are advertised in scopes_supported, with their claims in claims_supported', async () => {
    const metadata = (await (await fetch(`${as.app.url}/.well-known/openid-configuration`)).json()) as {
      scopes_supported: string[];
      claims_supported: string[];
    };
    expect(metadata.scopes_supported).toEqual(
      expect.arrayContaining(['openid', 'offline_access', 'profile', 'email']),
    );
    expect(metadata.claims_supported).toEqual(
      expect.arrayContaining(['name', 'preferred_username', 'email', 'email_verified']),
    );
  });

  it("grant ChatGPT's request as claims of the ID token, not as scopes of the access token nor at UserInfo", async () => {
    const { username, id } = await as.createUser();
    await users.setProfile(id, { name: 'Alice Liddell', email: 'alice@example.com', emailVerified: true });
    const tokens = await chatgptTokens(username);
    // The token response says what was granted.
    expect(tokens['scope']).toBe(CHATGPT_SCOPE);
    // The access token is for the resource: its scope holds no claim scope.
    const access = decodeJwt(tokens['access_token']!);
    expect(access.aud).toBe(RESOURCE);
    expect(access['scope']).toBe('openid offline_access');
    const claims = {
      name: 'Alice Liddell',
      preferred_username: username,
      email: 'alice@example.com',
      email_verified: true,
    };
    expect(decodeJwt(tokens['id_token']!)).toMatchObject({ sub: id, aud: chatgpt.clientId, ...claims });
    // The access token is the resource's too: presented at UserInfo (as the resource could), it reads no name and
    // no address, only what UserInfo answers for openid alone.
    expect(await userinfo(tokens['access_token']!)).toEqual({ sub: id, preferred_username: username });

    // A resource server introspecting the token reads the token's scope, not the claims granted beside it.
    const resourceServer = await as.createClient({
      resourceServer: RESOURCE,
      confidential: 'client_secret_basic',
    });
    const introspected = await fetch(`${as.app.url}/introspect`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${resourceServer.clientId}:${resourceServer.clientSecret}`).toString('base64')}`,
      },
      body: new URLSearchParams({ token: tokens['access_token']! }).toString(),
    });
    expect(await introspected.json()).toMatchObject({ active: true, scope: 'openid offline_access' });

    // A refresh keeps the grant: the claims again, with the person's current profile.
    await users.setProfile(id, { name: 'Alice' });
    const refreshed = await tokenRequest(as, {
      grant_type: 'refresh_token',
      refresh_token: tokens['refresh_token'],
      client_id: chatgpt.clientId,
      client_secret: chatgpt.clientSecret,
    });
    expect(refreshed.status).toBe(200);
    expect(decodeJwt(refreshed.body['id_token'] as string)).toMatchObject({
      name: 'Alice',
      email: 'alice@example.com',
    });
    expect(decodeJwt(refreshed.body['access_token'] as string)['scope']).toBe('openid offline_access');
    expect(await userinfo(refreshed.body['access_token'] as string)).toEqual({
      sub: id,
      preferred_username: username,
    });
  });

  it('grant email to a user without an address with no email claim at all', async () => {
    const { username, id } = await as.createUser();
    const tokens = await chatgptTokens(username);
    expect(tokens['scope']).toBe(CHATGPT_SCOPE);
    const idToken = decodeJwt(tokens['id_token']!);
    expect(idToken).toMatchObject({ preferred_username: username });
    expect(idToken).not.toHaveProperty('email');
    expect(idToken).not.toHaveProperty('email_verified');
    expect(idToken).not.toHaveProperty('name');
    expect(await userinfo(tokens['access_token']!)).toEqual({ sub: id, preferred_username: username });
  });

  it('leave profile and email out of a request without openid, which they would grant nothing in', async () => {
    const { username } = await as.createUser();
    const request = authorizationRequest(as, chatgpt, { scope: 'notes:read email profile' });
    const callback = await authorize(
      new HeadlessUserAgent(),
      request,
      { username, password: PASSWORD },
      chatgpt,
    );
    const tokens = await redeem(as, chatgpt, callback, request, { client_secret: chatgpt.clientSecret });
    expect(tokens.body['scope']).toBe('notes:read');
    expect(tokens.body['id_token']).toBeUndefined();
  });

  it('still refuse a scope nobody offers, with invalid_scope, no redirect and nothing stored', async () => {
    // A client that registered itself and that nobody approved: its error is a page, never a redirect.
    const registered = await fetch(`${as.app.url}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Claude',
        redirect_uris: [CHATGPT_REDIRECT],
        token_endpoint_auth_method: 'none',
      }),
    });
    const { client_id: clientId } = (await registered.json()) as { client_id: string };
    const client: TestClient = { clientId, redirectUri: CHATGPT_REDIRECT };
    const before = await as.counts();
    const ua = new HeadlessUserAgent();
    const request = authorizationRequest(as, client, { scope: 'openid email address phone' });
    const answer = await settle(ua, await ua.get(request.url), (url) => url.startsWith(CHATGPT_REDIRECT));
    expect(answer.stoppedAt).toBeUndefined();
    expect(answer.response.status).toBe(400);
    expect(answer.response.headers.get('location')).toBeNull();
    expect(answer.response.body).toContain('invalid_scope');
    expect(answer.response.body).toContain('scope not offered for this resource: address phone');
    expect(await as.counts()).toEqual(before);
  });
});
