import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { startAuth0Fake, type Auth0Fake } from './auth0-fake.js';
import type { OidcFakeClient } from './oidc-fake.js';

const REDIRECT_URI = 'http://127.0.0.1:9/upstream/callback';
const VERIFIER = 'v'.repeat(43);
const API = 'https://notes.example/mcp';

describe('the Auth0 fake keeps the quirks of Auth0 it is written from', () => {
  let auth0: Auth0Fake;
  let client: OidcFakeClient;

  beforeAll(async () => {
    auth0 = await startAuth0Fake({
      users: [{ login: 'ada@acme.example', sub: 'auth0|abc123', email: 'ada@acme.example', name: 'Ada' }],
      apis: [API],
    });
    client = auth0.registerClient({ redirectUris: [REDIRECT_URI] });
  });
  afterAll(async () => {
    await auth0?.close();
  });

  const post = (path: string, body: Record<string, string>) =>
    fetch(`${auth0.baseUrl}${path}`, { method: 'POST', body: new URLSearchParams(body), redirect: 'manual' });

  function authorizeUrl(extra: Record<string, string>): URL {
    const url = new URL(`${auth0.baseUrl}/authorize`);
    url.search = new URLSearchParams({
      client_id: client.clientId,
      redirect_uri: REDIRECT_URI,
      response_type: 'code',
      scope: 'openid profile email',
      nonce: 'n-1',
      code_challenge: createHash('sha256').update(VERIFIER).digest('base64url'),
      code_challenge_method: 'S256',
      ...extra,
    }).toString();
    return url;
  }

  /** Signs ada in with `extra` authorization parameters and redeems the code at `/oauth/token`. */
  async function tokensFor(extra: Record<string, string>): Promise<Record<string, unknown>> {
    const authorization = /name="authorization" value="([0-9a-f]+)"/.exec(
      await (await fetch(authorizeUrl(extra))).text(),
    )![1]!;
    await post('/fake/session', { authorization, login: 'ada@acme.example' });
    const back = await post('/fake/oauth/approve', { authorization, authorize: '1' });
    const code = new URL(back.headers.get('location')!).searchParams.get('code')!;
    const token = await post('/oauth/token', {
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

  it('names the issuer with a trailing slash, in discovery and in the ID token, and the endpoints without', async () => {
    const discovery = (await (
      await fetch(`${auth0.baseUrl}/.well-known/openid-configuration`)
    ).json()) as Record<string, string>;
    expect(discovery).toMatchObject({
      issuer: `${auth0.baseUrl}/`,
      authorization_endpoint: `${auth0.baseUrl}/authorize`,
      token_endpoint: `${auth0.baseUrl}/oauth/token`,
      userinfo_endpoint: `${auth0.baseUrl}/userinfo`,
      jwks_uri: `${auth0.baseUrl}/.well-known/jwks.json`,
    });
    const tokens = await tokensFor({});
    const keys = createRemoteJWKSet(new URL(discovery['jwks_uri']!));
    const { payload } = await jwtVerify(String(tokens['id_token']), keys, {
      issuer: `${auth0.baseUrl}/`,
      audience: client.clientId,
    });
    expect(payload).toMatchObject({
      sub: 'auth0|abc123',
      name: 'Ada',
      email: 'ada@acme.example',
      email_verified: true,
      nonce: 'n-1',
    });
    // The issuer without its slash is another issuer.
    await expect(
      jwtVerify(String(tokens['id_token']), keys, { issuer: auth0.baseUrl, audience: client.clientId }),
    ).rejects.toThrow();
    const userinfo = await fetch(discovery['userinfo_endpoint']!, {
      headers: { authorization: `Bearer ${String(tokens['access_token'])}` },
    });
    expect(await userinfo.json()).toMatchObject({ sub: 'auth0|abc123', email: 'ada@acme.example' });
  });

  it('sends an unknown audience back as access_denied, Service not found, and records a known one', async () => {
    const before = auth0.issued().size;
    const refused = await fetch(authorizeUrl({ audience: 'https://unknown.example', state: 's-1' }), {
      redirect: 'manual',
    });
    expect(refused.status).toBe(302);
    const back = new URL(refused.headers.get('location')!);
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT_URI);
    expect(Object.fromEntries(back.searchParams)).toEqual({
      error: 'access_denied',
      error_description: 'Service not found: https://unknown.example',
      state: 's-1',
    });
    expect(auth0.issued().size).toBe(before);

    const forApi = await tokensFor({ audience: API });
    expect(auth0.audienceOf(String(forApi['access_token']))).toBe(API);
    const plain = await tokensFor({});
    expect(auth0.audienceOf(String(plain['access_token']))).toBeUndefined();
  });

  it('issues a refresh token only with offline_access', async () => {
    expect(await tokensFor({})).not.toHaveProperty('refresh_token');
    const offline = await tokensFor({ scope: 'openid offline_access', audience: API });
    expect(typeof offline['refresh_token']).toBe('string');
    const refreshed = await post('/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: String(offline['refresh_token']),
      client_id: client.clientId,
      client_secret: client.clientSecret,
    });
    expect(refreshed.status).toBe(200);
    const body = (await refreshed.json()) as Record<string, unknown>;
    // The refreshed access token is for the API the first one was.
    expect(auth0.audienceOf(String(body['access_token']))).toBe(API);
  });
});
