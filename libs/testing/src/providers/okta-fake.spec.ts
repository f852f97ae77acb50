import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import type { OidcFakeClient } from './oidc-fake.js';
import { startOktaFake, type OktaFake } from './okta-fake.js';

const REDIRECT_URI = 'http://127.0.0.1:9/upstream/callback';
const VERIFIER = 'v'.repeat(43);

describe('the Okta fake keeps the quirks of Okta it is written from', () => {
  let okta: OktaFake;
  let client: OidcFakeClient;

  beforeAll(async () => {
    okta = await startOktaFake({
      users: [
        {
          login: 'ada@acme.example',
          sub: '00u1ada0000000000001',
          email: 'ada@acme.example',
          name: 'Ada',
          groups: ['Everyone', 'Engineering'],
        },
      ],
      authorizationServers: ['default', 'aus1api'],
    });
    client = okta.registerClient({ redirectUris: [REDIRECT_URI] });
  });
  afterAll(async () => {
    await okta?.close();
  });

  const post = (path: string, body: Record<string, string>) =>
    fetch(`${okta.baseUrl}${path}`, { method: 'POST', body: new URLSearchParams(body), redirect: 'manual' });

  const discover = async (issuer: string) =>
    (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as Record<string, string>;

  /** Signs ada in at the authorization server of `issuer` asking `scope`, and redeems the code. */
  async function tokensFor(issuer: string, scope: string): Promise<Record<string, unknown>> {
    const discovery = await discover(issuer);
    const authorize = new URL(discovery['authorization_endpoint']!);
    authorize.search = new URLSearchParams({
      client_id: client.clientId,
      redirect_uri: REDIRECT_URI,
      response_type: 'code',
      scope,
      code_challenge: createHash('sha256').update(VERIFIER).digest('base64url'),
      code_challenge_method: 'S256',
    }).toString();
    const authorization = /name="authorization" value="([0-9a-f]+)"/.exec(
      await (await fetch(authorize)).text(),
    )![1]!;
    await post('/fake/session', { authorization, login: 'ada@acme.example' });
    const back = await post('/fake/oauth/approve', { authorization, authorize: '1' });
    const code = new URL(back.headers.get('location')!).searchParams.get('code')!;
    const token = await fetch(discovery['token_endpoint']!, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT_URI,
        code_verifier: VERIFIER,
      }),
      headers: { authorization: `Basic ${btoa(`${client.clientId}:${client.clientSecret}`)}` },
    });
    expect(token.status).toBe(200);
    return (await token.json()) as Record<string, unknown>;
  }

  it('serves the org server at the domain and custom ones under /oauth2/{id}, each its own issuer', async () => {
    const org = await discover(okta.baseUrl);
    expect(org).toMatchObject({
      issuer: okta.baseUrl,
      authorization_endpoint: `${okta.baseUrl}/oauth2/v1/authorize`,
      token_endpoint: `${okta.baseUrl}/oauth2/v1/token`,
      userinfo_endpoint: `${okta.baseUrl}/oauth2/v1/userinfo`,
      jwks_uri: `${okta.baseUrl}/oauth2/v1/keys`,
    });
    const defaultIssuer = `${okta.baseUrl}/oauth2/default`;
    const custom = await discover(defaultIssuer);
    expect(custom).toMatchObject({
      issuer: defaultIssuer,
      authorization_endpoint: `${defaultIssuer}/v1/authorize`,
      token_endpoint: `${defaultIssuer}/v1/token`,
      userinfo_endpoint: `${defaultIssuer}/v1/userinfo`,
      jwks_uri: `${defaultIssuer}/v1/keys`,
      code_challenge_methods_supported: ['S256'],
    });

    for (const [issuer, discovery] of [
      [okta.baseUrl, org],
      [defaultIssuer, custom],
    ] as const) {
      const tokens = await tokensFor(issuer, 'openid profile email');
      const { payload } = await jwtVerify(
        String(tokens['id_token']),
        createRemoteJWKSet(new URL(discovery['jwks_uri']!)),
        { issuer, audience: client.clientId },
      );
      expect(payload).toMatchObject({
        sub: '00u1ada0000000000001',
        preferred_username: 'ada@acme.example',
        email: 'ada@acme.example',
        email_verified: true,
        name: 'Ada',
        ver: 1,
      });
      const userinfo = await fetch(discovery['userinfo_endpoint']!, {
        headers: { authorization: `Bearer ${String(tokens['access_token'])}` },
      });
      expect(await userinfo.json()).toMatchObject({ sub: '00u1ada0000000000001', email: 'ada@acme.example' });
    }
  });

  it('answers 404 with E0000007 at every endpoint of an authorization server the org does not have', async () => {
    for (const path of ['/.well-known/openid-configuration', '/v1/authorize', '/v1/keys']) {
      const response = await fetch(`${okta.baseUrl}/oauth2/aus1nope${path}`, { redirect: 'manual' });
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({
        errorCode: 'E0000007',
        errorSummary: 'Not found: Resource not found: aus1nope (AuthorizationServer)',
      });
    }
    expect((await fetch(`${okta.baseUrl}/oauth2/aus1api/v1/keys`)).status).toBe(200);
  });

  it('puts groups in the ID token only with the groups scope, a refresh token only with offline_access', async () => {
    const issuer = `${okta.baseUrl}/oauth2/default`;
    const plain = await tokensFor(issuer, 'openid profile');
    expect(decodeJwt(String(plain['id_token']))).not.toHaveProperty('groups');
    expect(plain).not.toHaveProperty('refresh_token');
    const grouped = await tokensFor(issuer, 'openid groups offline_access');
    expect(decodeJwt(String(grouped['id_token']))['groups']).toEqual(['Everyone', 'Engineering']);
    expect(typeof grouped['refresh_token']).toBe('string');

    const refreshed = await fetch(`${issuer}/v1/token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: String(grouped['refresh_token']),
        client_id: client.clientId,
        client_secret: client.clientSecret,
      }),
    });
    expect(refreshed.status).toBe(200);
    expect(await refreshed.json()).toMatchObject({ scope: 'openid groups offline_access' });
  });

  it('sends a request without an S256 challenge back with invalid_request', async () => {
    const authorize = new URL(`${okta.baseUrl}/oauth2/default/v1/authorize`);
    authorize.search = new URLSearchParams({
      client_id: client.clientId,
      redirect_uri: REDIRECT_URI,
      response_type: 'code',
      scope: 'openid',
      code_challenge: VERIFIER,
      code_challenge_method: 'plain',
      state: 's-1',
    }).toString();
    const refused = await fetch(authorize, { redirect: 'manual' });
    expect(refused.status).toBe(302);
    const back = new URL(refused.headers.get('location')!).searchParams;
    expect(back.get('error')).toBe('invalid_request');
    expect(back.get('state')).toBe('s-1');
  });
});
