import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { startOidcFake, type OidcFake, type OidcFakeClient, type OidcFakePreset } from './oidc-fake.js';

const REDIRECT_URI = 'http://127.0.0.1:9/upstream/callback';
const VERIFIER = 'v'.repeat(43);

const PATHS = {
  '/authorize': 'authorize',
  '/token': 'token',
  '/userinfo': 'userinfo',
  '/jwks': 'jwks',
} as const;

interface User {
  readonly login: string;
  readonly sub: string;
}

/** The smallest provider: one realm, a refresh token with `offline_access`, UserInfo answering `sub`. */
const preset = (rotatesRefreshTokens?: boolean): OidcFakePreset<User> => ({
  route: (pathname) => {
    const endpoint = PATHS[pathname as keyof typeof PATHS];
    return endpoint ? { endpoint, realm: '' } : undefined;
  },
  discovery: (baseUrl) => ({ issuer: baseUrl }),
  issuesRefreshToken: ({ scopes }) => scopes.includes('offline_access'),
  idTokenClaims: (baseUrl, { user }) => ({ iss: baseUrl, sub: user.sub }),
  userinfo: ({ user, scopes }) => ({ sub: user.sub, scope: scopes.join(' ') }),
  ...(rotatesRefreshTokens === undefined ? {} : { rotatesRefreshTokens }),
});

describe('the shared OpenID Connect fake refreshes as RFC 6749 6 and RFC 9700 4.14.2 say', () => {
  let rotating: OidcFake;
  let keeping: OidcFake;

  beforeAll(async () => {
    rotating = await startOidcFake(preset(), [{ login: 'ada', sub: 'ada-1' }]);
    keeping = await startOidcFake(preset(false), [{ login: 'ada', sub: 'ada-1' }]);
  });
  afterAll(async () => {
    await rotating?.close();
    await keeping?.close();
  });

  const post = (fake: OidcFake, path: string, body: Record<string, string>) =>
    fetch(`${fake.baseUrl}${path}`, { method: 'POST', body: new URLSearchParams(body), redirect: 'manual' });

  /** Signs ada in at `fake` for `client` and redeems the code. */
  async function tokensFor(fake: OidcFake, client: OidcFakeClient): Promise<Record<string, unknown>> {
    const authorize = new URL(`${fake.baseUrl}/authorize`);
    authorize.search = new URLSearchParams({
      client_id: client.clientId,
      redirect_uri: REDIRECT_URI,
      response_type: 'code',
      scope: 'openid profile offline_access',
      code_challenge: createHash('sha256').update(VERIFIER).digest('base64url'),
      code_challenge_method: 'S256',
    }).toString();
    const authorization = /name="authorization" value="([0-9a-f]+)"/.exec(
      await (await fetch(authorize)).text(),
    )![1]!;
    await post(fake, '/fake/session', { authorization, login: 'ada' });
    const back = await post(fake, '/fake/oauth/approve', { authorization, authorize: '1' });
    const code = new URL(back.headers.get('location')!).searchParams.get('code')!;
    const token = await post(fake, '/token', {
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

  /** A refresh request by `client`; its status and body. */
  async function refresh(
    fake: OidcFake,
    client: OidcFakeClient,
    refreshToken: unknown,
    extra: Record<string, string> = {},
  ): Promise<{ status: number; body: Record<string, unknown> }> {
    const response = await post(fake, '/token', {
      grant_type: 'refresh_token',
      refresh_token: String(refreshToken),
      client_id: client.clientId,
      client_secret: client.clientSecret,
      ...extra,
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  const userinfo = async (fake: OidcFake, accessToken: unknown) =>
    (await fetch(`${fake.baseUrl}/userinfo`, { headers: { authorization: `Bearer ${String(accessToken)}` } }))
      .status;

  it('rotates: a new access token good at UserInfo and a new refresh token, the old one spent', async () => {
    const client = rotating.registerClient({ redirectUris: [REDIRECT_URI] });
    const first = await tokensFor(rotating, client);
    const renewed = await refresh(rotating, client, first['refresh_token']);
    expect(renewed.status).toBe(200);
    expect(renewed.body).toMatchObject({
      token_type: 'Bearer',
      expires_in: 3599,
      scope: 'openid profile offline_access',
    });
    expect(renewed.body).not.toHaveProperty('id_token');
    expect(renewed.body['access_token']).not.toBe(first['access_token']);
    expect(typeof renewed.body['refresh_token']).toBe('string');
    expect(renewed.body['refresh_token']).not.toBe(first['refresh_token']);
    expect(await userinfo(rotating, renewed.body['access_token'])).toBe(200);
    expect(rotating.issued().has(String(renewed.body['refresh_token']))).toBe(true);
    const next = await refresh(rotating, client, renewed.body['refresh_token']);
    expect(next.status).toBe(200);

    // The spent first token, presented again: refused, and the chain it started revoked with it.
    const answers = rotating.tokenAnswers.length;
    const reused = await refresh(rotating, client, first['refresh_token']);
    expect(reused).toEqual({
      status: 400,
      body: { error: 'invalid_grant', error_description: 'refresh token already used' },
    });
    expect((await refresh(rotating, client, next.body['refresh_token'])).body).toMatchObject({
      error: 'invalid_grant',
    });
    expect(rotating.tokenAnswers.slice(answers).some((answer) => 'access_token' in answer)).toBe(false);
  });

  it("refuses another client's refresh token with invalid_grant and a wider scope with invalid_scope", async () => {
    const client = rotating.registerClient({ redirectUris: [REDIRECT_URI] });
    const other = rotating.registerClient({ redirectUris: [REDIRECT_URI] });
    const tokens = await tokensFor(rotating, client);
    expect(await refresh(rotating, other, tokens['refresh_token'])).toMatchObject({
      status: 400,
      body: { error: 'invalid_grant' },
    });
    expect(
      await refresh(rotating, { ...client, clientSecret: 'wrong' }, tokens['refresh_token']),
    ).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    expect(await refresh(rotating, client, tokens['refresh_token'], { scope: 'openid email' })).toMatchObject(
      {
        status: 400,
        body: { error: 'invalid_scope' },
      },
    );
    // None of the refusals spent it; a narrower scope is granted for that access token.
    const narrowed = await refresh(rotating, client, tokens['refresh_token'], { scope: 'openid' });
    expect(narrowed).toMatchObject({ status: 200, body: { scope: 'openid' } });
    expect(rotating.authorizationOf(String(narrowed.body['access_token']))?.scopes).toEqual(['openid']);
    expect(await refresh(rotating, client, 'never-issued')).toMatchObject({
      body: { error: 'invalid_grant' },
    });
  });

  it('keeps a refresh token that does not rotate, until revokeRefreshTokens makes it invalid_grant', async () => {
    const client = keeping.registerClient({ redirectUris: [REDIRECT_URI] });
    const tokens = await tokensFor(keeping, client);
    const once = await refresh(keeping, client, tokens['refresh_token']);
    const twice = await refresh(keeping, client, tokens['refresh_token']);
    expect(once.status).toBe(200);
    expect(once.body).not.toHaveProperty('refresh_token');
    expect(twice.status).toBe(200);
    expect(await userinfo(keeping, twice.body['access_token'])).toBe(200);

    keeping.revokeRefreshTokens();
    expect(await refresh(keeping, client, tokens['refresh_token'])).toMatchObject({
      status: 400,
      body: { error: 'invalid_grant' },
    });
  });
});
