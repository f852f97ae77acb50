import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { startGithubFake, type GithubFake, type GithubFakeApp } from './github-fake.js';

describe('the GitHub fake keeps the quirks of GitHub it is written from', () => {
  let github: GithubFake;
  let app: GithubFakeApp;
  const callbackUrl = 'http://127.0.0.1:9/upstream/callback';

  beforeAll(async () => {
    github = await startGithubFake({ users: [{ id: 7, login: 'hubot' }] });
    app = github.registerApp({ callbackUrl, kind: 'github-app' });
  });
  afterAll(async () => {
    await github?.close();
  });

  const post = (path: string, body: Record<string, string>, headers: Record<string, string> = {}) =>
    fetch(`${github.baseUrl}${path}`, {
      method: 'POST',
      body: new URLSearchParams(body),
      redirect: 'manual',
      headers,
    });

  /** A code for hubot, with an S256 challenge of `verifier`. */
  async function codeFor(verifier: string, redirectUri = `${callbackUrl}/deeper`): Promise<string> {
    const authorize = new URL(`${github.baseUrl}/login/oauth/authorize`);
    authorize.search = new URLSearchParams({
      client_id: app.clientId,
      redirect_uri: redirectUri,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    }).toString();
    const authorization = /name="authorization" value="([0-9a-f]+)"/.exec(
      await (await fetch(authorize)).text(),
    )![1]!;
    await post('/session', { authorization, login: 'hubot', password: 'password' });
    const back = await post('/login/oauth/authorize', { authorization, authorize: '1' });
    return new URL(back.headers.get('location')!).searchParams.get('code')!;
  }

  it('answers JSON only when asked, and reports a spent code with status 200 and an error', async () => {
    const verifier = 'v'.repeat(43);
    const code = await codeFor(verifier);
    const body = { client_id: app.clientId, client_secret: app.clientSecret, code, code_verifier: verifier };
    const first = await post('/login/oauth/access_token', body);
    expect(first.headers.get('content-type')).toContain('application/x-www-form-urlencoded');
    const tokens = new URLSearchParams(await first.text());
    expect(tokens.get('access_token')).toMatch(/^ghu_/);
    expect(tokens.get('expires_in')).toBe('28800');
    expect(tokens.get('refresh_token')).toMatch(/^ghr_/);

    const again = await post('/login/oauth/access_token', body, { accept: 'application/json' });
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ error: 'bad_verification_code' });
  });

  it('refuses a wrong PKCE verifier, and rotates a GitHub App refresh token on use', async () => {
    const code = await codeFor('a'.repeat(43));
    const wrong = await post(
      '/login/oauth/access_token',
      { client_id: app.clientId, client_secret: app.clientSecret, code, code_verifier: 'b'.repeat(43) },
      { accept: 'application/json' },
    );
    expect(await wrong.json()).toMatchObject({ error: 'bad_verification_code' });

    const verifier = 'c'.repeat(43);
    const issued = (await (
      await post(
        '/login/oauth/access_token',
        {
          client_id: app.clientId,
          client_secret: app.clientSecret,
          code: await codeFor(verifier),
          code_verifier: verifier,
        },
        { accept: 'application/json' },
      )
    ).json()) as { refresh_token: string };
    const refresh = (token: string) =>
      post(
        '/login/oauth/access_token',
        {
          client_id: app.clientId,
          client_secret: app.clientSecret,
          grant_type: 'refresh_token',
          refresh_token: token,
        },
        { accept: 'application/json' },
      ).then((response) => response.json() as Promise<Record<string, unknown>>);
    const rotated = await refresh(issued.refresh_token);
    expect(rotated['refresh_token']).toEqual(expect.stringMatching(/^ghr_/));
    expect(rotated['refresh_token']).not.toBe(issued.refresh_token);
    expect(await refresh(issued.refresh_token)).toMatchObject({ error: 'bad_refresh_token' });
  });

  it('sends a redirect URI outside the registered callback to the callback with redirect_uri_mismatch', async () => {
    const authorize = new URL(`${github.baseUrl}/login/oauth/authorize`);
    authorize.search = new URLSearchParams({
      client_id: app.clientId,
      redirect_uri: 'http://127.0.0.1:9/elsewhere',
      state: 'xyz',
    }).toString();
    const response = await fetch(authorize, { redirect: 'manual' });
    const location = new URL(response.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(callbackUrl);
    expect(location.searchParams.get('error')).toBe('redirect_uri_mismatch');
    expect(location.searchParams.get('state')).toBe('xyz');
  });

  it('refuses an API request without a User-Agent, and a token it does not know', async () => {
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      // fetch always sends a User-Agent; node:http sends none unless told.
      const req = request(`${github.apiUrl}/user`, { headers: { authorization: 'Bearer x' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(403);
    const unknown = await fetch(`${github.apiUrl}/user`, { headers: { authorization: 'Bearer gho_nope' } });
    expect(unknown.status).toBe(401);
    expect(await unknown.json()).toMatchObject({ message: 'Bad credentials' });
  });
});
