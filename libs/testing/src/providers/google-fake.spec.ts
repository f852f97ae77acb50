import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import type { OidcFakeClient } from './oidc-fake.js';
import { startGoogleFake, type GoogleFake } from './google-fake.js';

const REDIRECT_URI = 'http://127.0.0.1:9/upstream/callback';
const VERIFIER = 'v'.repeat(43);

describe('the Google fake keeps the quirks of Google it is written from', () => {
  let google: GoogleFake;
  let client: OidcFakeClient;

  beforeAll(async () => {
    google = await startGoogleFake({
      users: [
        {
          login: 'ada@acme.example',
          sub: '1001',
          email: 'ada@acme.example',
          name: 'Ada',
          hd: 'acme.example',
        },
        { login: 'bob@gmail.example', sub: '1002', email: 'bob@acme.example' },
      ],
    });
    client = google.registerClient({ redirectUris: [REDIRECT_URI] });
  });
  afterAll(async () => {
    await google?.close();
  });

  const post = (path: string, body: Record<string, string>) =>
    fetch(`${google.baseUrl}${path}`, {
      method: 'POST',
      body: new URLSearchParams(body),
      redirect: 'manual',
    });

  /** Signs `login` in with `extra` authorization parameters and redeems the code. */
  async function tokensFor(login: string, extra: Record<string, string>): Promise<Record<string, unknown>> {
    const authorize = new URL(`${google.baseUrl}/o/oauth2/v2/auth`);
    authorize.search = new URLSearchParams({
      client_id: client.clientId,
      redirect_uri: REDIRECT_URI,
      response_type: 'code',
      scope: 'openid email profile',
      nonce: 'n-1',
      code_challenge: createHash('sha256').update(VERIFIER).digest('base64url'),
      code_challenge_method: 'S256',
      ...extra,
    }).toString();
    const authorization = /name="authorization" value="([0-9a-f]+)"/.exec(
      await (await fetch(authorize)).text(),
    )![1]!;
    await post('/fake/session', { authorization, login });
    const back = await post('/fake/oauth/approve', { authorization, authorize: '1' });
    const code = new URL(back.headers.get('location')!).searchParams.get('code')!;
    const token = await post('/token', {
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

  it('issues a refresh token only with access_type=offline and prompt=consent together', async () => {
    expect(await tokensFor('ada@acme.example', {})).not.toHaveProperty('refresh_token');
    expect(await tokensFor('ada@acme.example', { access_type: 'offline' })).not.toHaveProperty(
      'refresh_token',
    );
    expect(await tokensFor('ada@acme.example', { prompt: 'consent' })).not.toHaveProperty('refresh_token');
    const offline = await tokensFor('ada@acme.example', { access_type: 'offline', prompt: 'consent' });
    expect(typeof offline['refresh_token']).toBe('string');
  });

  it("signs ID tokens with its JWKS, hd only for a Workspace account whatever the address's domain", async () => {
    const discovery = (await (await fetch(`${google.baseUrl}/.well-known/openid-configuration`)).json()) as {
      issuer: string;
      jwks_uri: string;
    };
    expect(discovery.issuer).toBe(google.baseUrl);
    const keys = createRemoteJWKSet(new URL(discovery.jwks_uri));
    const verify = async (login: string) =>
      (
        await jwtVerify(String((await tokensFor(login, {}))['id_token']), keys, {
          issuer: google.baseUrl,
          audience: client.clientId,
        })
      ).payload;
    expect(await verify('ada@acme.example')).toMatchObject({ sub: '1001', hd: 'acme.example', nonce: 'n-1' });
    const consumer = await verify('bob@gmail.example');
    expect(consumer).toMatchObject({ sub: '1002', email: 'bob@acme.example', email_verified: true });
    expect(consumer).not.toHaveProperty('hd');
  });

  it('refuses a spent code and a wrong verifier with invalid_grant', async () => {
    const tokens = await tokensFor('ada@acme.example', {});
    const userinfo = await fetch(`${google.baseUrl}/v1/userinfo`, {
      headers: { authorization: `Bearer ${String(tokens['access_token'])}` },
    });
    expect(await userinfo.json()).toMatchObject({ sub: '1001', hd: 'acme.example' });
    const spent = google.tokenAnswers.length;
    const again = await post('/token', {
      grant_type: 'authorization_code',
      code: 'not-a-code',
      redirect_uri: REDIRECT_URI,
      code_verifier: VERIFIER,
      client_id: client.clientId,
      client_secret: client.clientSecret,
    });
    expect(again.status).toBe(400);
    expect(google.tokenAnswers[spent]).toMatchObject({ error: 'invalid_grant' });
  });
});
