import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { startKeycloakFake, type KeycloakFake } from './keycloak-fake.js';
import type { OidcFakeClient } from './oidc-fake.js';

const REDIRECT_URI = 'http://127.0.0.1:9/upstream/callback';
const VERIFIER = 'v'.repeat(43);
const ADA = '6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f';

describe('the Keycloak fake keeps the quirks of Keycloak it is written from', () => {
  let keycloak: KeycloakFake;
  let client: OidcFakeClient;
  let issuer: string;

  beforeAll(async () => {
    keycloak = await startKeycloakFake({
      users: [{ login: 'ada', realm: 'acme', sub: ADA, email: 'ada@acme.example', name: 'Ada Lovelace' }],
    });
    client = keycloak.registerClient({ redirectUris: [REDIRECT_URI] });
    issuer = `${keycloak.baseUrl}/realms/acme`;
  });
  afterAll(async () => {
    await keycloak?.close();
  });

  const post = (url: string, body: Record<string, string>) =>
    fetch(url, { method: 'POST', body: new URLSearchParams(body), redirect: 'manual' });

  /** The sign-in page of `realm`'s authorization endpoint for a request asking `scope`: its authorization id. */
  async function signInPage(realm: string, scope: string): Promise<string> {
    const authorize = new URL(`${keycloak.baseUrl}/realms/${realm}/protocol/openid-connect/auth`);
    authorize.search = new URLSearchParams({
      client_id: client.clientId,
      redirect_uri: REDIRECT_URI,
      response_type: 'code',
      scope,
      code_challenge: createHash('sha256').update(VERIFIER).digest('base64url'),
      code_challenge_method: 'S256',
    }).toString();
    return /name="authorization" value="([0-9a-f]+)"/.exec(await (await fetch(authorize)).text())![1]!;
  }

  /** Signs ada in at acme asking `scope`, and redeems the code. */
  async function tokensFor(scope: string): Promise<Record<string, unknown>> {
    const authorization = await signInPage('acme', scope);
    await post(`${keycloak.baseUrl}/fake/session`, { authorization, login: 'ada' });
    const back = await post(`${keycloak.baseUrl}/fake/oauth/approve`, { authorization, authorize: '1' });
    const code = new URL(back.headers.get('location')!).searchParams.get('code')!;
    const token = await post(`${issuer}/protocol/openid-connect/token`, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      code_verifier: VERIFIER,
      client_id: client.clientId,
      client_secret: client.clientSecret,
    });
    expect(token.status).toBe(200);
    return (await token.json()) as Record<string, unknown>;
  }

  it('serves each realm as its own issuer, and answers Realm does not exist for one that does not', async () => {
    const discovery = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as Record<
      string,
      string
    >;
    expect(discovery).toMatchObject({
      issuer,
      authorization_endpoint: `${issuer}/protocol/openid-connect/auth`,
      token_endpoint: `${issuer}/protocol/openid-connect/token`,
      userinfo_endpoint: `${issuer}/protocol/openid-connect/userinfo`,
      jwks_uri: `${issuer}/protocol/openid-connect/certs`,
    });
    expect((await fetch(`${keycloak.baseUrl}/realms/master/.well-known/openid-configuration`)).status).toBe(
      200,
    );
    for (const path of ['.well-known/openid-configuration', 'protocol/openid-connect/auth']) {
      const missing = await fetch(`${keycloak.baseUrl}/realms/nope/${path}`, { redirect: 'manual' });
      expect(missing.status).toBe(404);
      expect(await missing.json()).toEqual({ error: 'Realm does not exist' });
    }
    const before = keycloak.tokenAnswers.length;
    const token = await post(`${keycloak.baseUrl}/realms/nope/protocol/openid-connect/token`, {
      grant_type: 'authorization_code',
      code: 'any',
      client_id: client.clientId,
      client_secret: client.clientSecret,
    });
    expect(token.status).toBe(404);
    expect(keycloak.tokenAnswers.length).toBe(before);
  });

  it('grants profile and email as default scopes, their claims in the ID token, to a member of the realm only', async () => {
    const tokens = await tokensFor('openid');
    expect(tokens['scope']).toBe('openid profile email');
    const { payload } = await jwtVerify(
      String(tokens['id_token']),
      createRemoteJWKSet(new URL(`${issuer}/protocol/openid-connect/certs`)),
      { issuer, audience: client.clientId },
    );
    expect(payload).toMatchObject({
      sub: ADA,
      typ: 'ID',
      azp: client.clientId,
      preferred_username: 'ada',
      name: 'Ada Lovelace',
      email: 'ada@acme.example',
      email_verified: true,
    });
    const userinfo = await fetch(`${issuer}/protocol/openid-connect/userinfo`, {
      headers: { authorization: `Bearer ${String(tokens['access_token'])}` },
    });
    expect(await userinfo.json()).toMatchObject({ sub: ADA, preferred_username: 'ada' });

    const elsewhere = await signInPage('master', 'openid');
    const signIn = await post(`${keycloak.baseUrl}/fake/session`, { authorization: elsewhere, login: 'ada' });
    expect(signIn.status).toBe(401);
  });

  it('issues a refresh token on every code exchange, and a new one on each refresh', async () => {
    const tokens = await tokensFor('openid');
    expect(typeof tokens['refresh_token']).toBe('string');
    const refresh = (refreshToken: unknown) =>
      post(`${issuer}/protocol/openid-connect/token`, {
        grant_type: 'refresh_token',
        refresh_token: String(refreshToken),
        client_id: client.clientId,
        client_secret: client.clientSecret,
      });
    const refreshed = await refresh(tokens['refresh_token']);
    expect(refreshed.status).toBe(200);
    const body = (await refreshed.json()) as Record<string, unknown>;
    expect(typeof body['refresh_token']).toBe('string');
    expect(body['refresh_token']).not.toBe(tokens['refresh_token']);
    const reused = await refresh(tokens['refresh_token']);
    expect(reused.status).toBe(400);
    expect(await reused.json()).toMatchObject({ error: 'invalid_grant' });
  });
});
