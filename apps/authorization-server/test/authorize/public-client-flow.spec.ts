import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { HeadlessUserAgent } from '@portcullis/testing';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import {
  authorizationRequest,
  authorize,
  redeem,
  RESOURCE,
  startAuthorizationServer,
  tokenRequest,
  type AuthorizationServerFixture,
} from '../support/authorization-server.fixture.js';

describe('the authorization code flow for a public client', () => {
  let as: AuthorizationServerFixture;
  let jwksUri: string;
  beforeAll(async () => {
    as = await startAuthorizationServer();
    const metadata = (await (await fetch(`${as.app.url}/.well-known/oauth-authorization-server`)).json()) as {
      jwks_uri: string;
    };
    jwksUri = metadata.jwks_uri;
  });
  afterAll(async () => {
    await as?.close();
  });

  it('signs in, asks consent, and redirects with code, state and iss; the token verifies against jwks_uri', async () => {
    const client = await as.createClient();
    const user = await as.createUser();
    const ua = new HeadlessUserAgent();
    const request = authorizationRequest(as, client, { scope: 'openid notes:read', nonce: 'n-0S6_WzA2Mj' });

    const callback = await authorize(ua, request, user, client);
    expect(callback.origin + callback.pathname).toBe(client.redirectUri);
    expect(callback.searchParams.get('state')).toBe(request.state);
    expect(callback.searchParams.get('iss')).toBe(as.issuer);
    expect(callback.searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const token = await redeem(as, client, callback, request);
    expect(token.status).toBe(200);
    expect(token.headers.get('cache-control')).toBe('no-store');
    expect(token.body).toMatchObject({ token_type: 'Bearer', expires_in: 300, scope: 'openid notes:read' });

    const accessToken = token.body.access_token as string;
    expect(decodeProtectedHeader(accessToken)).toMatchObject({ alg: 'ES256', typ: 'at+jwt' });
    expect(jwksUri).toBe(`${as.issuer}/jwks`);
    const { payload } = await jwtVerify(accessToken, createRemoteJWKSet(new URL(jwksUri)), {
      issuer: as.issuer,
      audience: RESOURCE,
      typ: 'at+jwt',
    });
    expect(payload).toMatchObject({ sub: user.id, client_id: client.clientId, scope: 'openid notes:read' });
    expect(typeof payload.jti).toBe('string');
    expect(payload.exp! - payload.iat!).toBe(300);

    const idToken = await jwtVerify(token.body.id_token as string, createRemoteJWKSet(new URL(jwksUri)), {
      issuer: as.issuer,
      audience: client.clientId,
    });
    expect(idToken.payload).toMatchObject({ sub: user.id, nonce: 'n-0S6_WzA2Mj' });

    const userinfo = await fetch(`${as.app.url}/userinfo`, {
      headers: { authorization: `Bearer ${accessToken}` },
    });
    expect(userinfo.status).toBe(200);
    expect(await userinfo.json()).toEqual({ sub: user.id, preferred_username: user.username });
  });

  it('remembers consent: a second authorization of the same scope skips the consent page', async () => {
    // A confidential web client on an https redirect URI, which must authenticate to redeem the code, is
    // re-authorized silently.
    const client = await as.createClient({
      confidential: 'client_secret_basic',
      redirectUris: ['https://app.example.com/cb'],
    });
    const user = await as.createUser();
    const ua = new HeadlessUserAgent();
    await authorize(ua, authorizationRequest(as, client), user, client);

    const again = authorizationRequest(as, client);
    const response = await ua.get(again.url);
    expect(response.status).toBe(303);
    const location = new URL(response.location!);
    expect(location.origin + location.pathname).toBe(client.redirectUri);
    expect(location.searchParams.get('code')).toBeTruthy();
    expect(location.searchParams.get('iss')).toBe(as.issuer);
  });

  it('shows consent again for prompt=consent, as the MCP SDK sends with offline_access', async () => {
    const client = await as.createClient();
    const user = await as.createUser();
    const ua = new HeadlessUserAgent();
    await authorize(ua, authorizationRequest(as, client), user, client);

    const request = authorizationRequest(as, client, {
      scope: 'notes:read offline_access',
      prompt: 'consent',
    });
    const consent = await ua.follow(await ua.get(request.url));
    expect(consent.url).toContain('/consent?interaction=');
    const approved = await ua.submit(consent.form(), {}, { button: { name: 'decision', value: 'approve' } });
    const token = await redeem(as, client, new URL(approved.location!), request);
    expect(token.body.scope).toBe('notes:read offline_access');
    expect(typeof token.body.refresh_token).toBe('string');
  });

  it('asks again for a wider scope, and grants only the scopes left ticked', async () => {
    const client = await as.createClient();
    const user = await as.createUser();
    const ua = new HeadlessUserAgent();
    await authorize(ua, authorizationRequest(as, client, { scope: 'notes:read' }), user, client);

    const wider = authorizationRequest(as, client, { scope: 'notes:read notes:write' });
    const consentPage = await ua.follow(await ua.get(wider.url));
    expect(consentPage.body).toContain('notes:write');
    const form = consentPage.form();
    expect(form.fields['scope']).toEqual(['notes:read', 'notes:write']);
    const approved = await ua.submit(
      form,
      { scope: ['notes:read'] },
      { button: { name: 'decision', value: 'approve' } },
    );
    expect(approved.status).toBe(303);
    const callback = new URL(approved.location!);
    const token = await redeem(as, client, callback, wider);
    expect(token.body.scope).toBe('notes:read');
  });

  it('sends access_denied with state and iss when the user denies', async () => {
    const client = await as.createClient();
    const user = await as.createUser();
    const ua = new HeadlessUserAgent();
    const request = authorizationRequest(as, client);
    const login = await ua.follow(await ua.get(request.url));
    const consent = await ua.follow(
      await ua.submit(login.form(), { username: user.username, password: user.password }),
    );
    const before = await as.counts();
    const denied = await ua.submit(consent.form(), {}, { button: { name: 'decision', value: 'deny' } });
    expect(denied.status).toBe(303);
    const callback = new URL(denied.location!);
    expect(Object.fromEntries(callback.searchParams)).toEqual({
      error: 'access_denied',
      error_description: 'the user denied the request',
      state: request.state,
      iss: as.issuer,
    });
    expect(await as.counts()).toEqual(before);
  });

  it('shows the login page again after a wrong password, with a 303 after the POST', async () => {
    const client = await as.createClient();
    const user = await as.createUser();
    const ua = new HeadlessUserAgent();
    const login = await ua.follow(await ua.get(authorizationRequest(as, client).url));
    expect(login.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(login.headers.get('x-frame-options')).toBe('DENY');
    const failed = await ua.submit(login.form(), { username: user.username, password: 'wrong' });
    expect(failed.status).toBe(303);
    const again = await ua.follow(failed);
    expect(again.status).toBe(401);
    expect(again.body).toContain('Wrong username or password');
    expect(again.form().fields['username']).toBeDefined();
  });

  it('answers prompt=none with login_required when nobody is signed in', async () => {
    const client = await as.createClient();
    const request = authorizationRequest(as, client, { prompt: 'none' });
    const response = await new HeadlessUserAgent().get(request.url);
    expect(response.status).toBe(303);
    const callback = new URL(response.location!);
    expect(callback.searchParams.get('error')).toBe('login_required');
    expect(callback.searchParams.get('iss')).toBe(as.issuer);
  });

  it('refuses a token request for a client without the refresh_token grant to get a refresh token', async () => {
    const client = await as.createClient({ grantTypes: ['authorization_code'] });
    const user = await as.createUser();
    const request = authorizationRequest(as, client, { scope: 'notes:read offline_access' });
    const callback = await authorize(new HeadlessUserAgent(), request, user, client);
    const token = await redeem(as, client, callback, request);
    expect(token.status).toBe(200);
    expect(token.body.refresh_token).toBeUndefined();
    expect(token.body.scope).toBe('notes:read');

    const refresh = await tokenRequest(as, {
      grant_type: 'refresh_token',
      refresh_token: 'x',
      client_id: client.clientId,
    });
    expect(refresh.status).toBe(400);
    expect(refresh.body.error).toBe('unauthorized_client');
  });
});
