import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startGithubFake, type GithubFake, type GithubFakeApp } from '@portcullis/testing';
import * as oidc from 'openid-client';
import type { UpstreamOptions } from '../../src/proxy.options.js';
import { UpstreamClient } from '../../src/upstream/upstream-client.service.js';

const CALLBACK = 'http://127.0.0.1:9/upstream/callback';

describe('the upstream client with UPSTREAM_PROVIDER=github, against the GitHub fake', () => {
  let github: GithubFake;

  beforeAll(async () => {
    github = await startGithubFake({
      users: [
        { id: 42, login: 'hubot', emails: [{ email: 'hubot@example.com', primary: true, verified: true }] },
      ],
    });
  });
  afterAll(async () => {
    await github?.close();
  });

  const clientFor = (app: GithubFakeApp, secret = app.clientSecret) =>
    new UpstreamClient({
      provider: { name: 'github', baseUrl: github.baseUrl, apiUrl: github.apiUrl },
      issuer: github.baseUrl,
      clientId: app.clientId,
      clientSecret: secret,
      scopes: ['read:user', 'user:email'],
      timeoutMs: 5000,
      redirectUri: CALLBACK,
    } satisfies UpstreamOptions);

  /** Sends hubot through GitHub's pages from `authorizationUrl`; the callback query GitHub redirects to. */
  async function callbackFrom(authorizationUrl: URL, answer: '1' | '0' = '1'): Promise<URLSearchParams> {
    const page = await (await fetch(authorizationUrl)).text();
    const authorization = /name="authorization" value="([0-9a-f]+)"/.exec(page)?.[1] ?? '';
    const post = (path: string, body: Record<string, string>) =>
      fetch(`${github.baseUrl}${path}`, {
        method: 'POST',
        body: new URLSearchParams(body),
        redirect: 'manual',
      });
    await post('/session', { authorization, login: 'hubot', password: 'password' });
    const back = await post('/login/oauth/authorize', { authorization, authorize: answer });
    const location = new URL(back.headers.get('location') ?? '');
    expect(`${location.origin}${location.pathname}`).toBe(CALLBACK);
    return location.searchParams;
  }

  async function signIn(client: UpstreamClient, answer: '1' | '0' = '1') {
    const checks = { state: oidc.randomState(), codeVerifier: oidc.randomPKCECodeVerifier() };
    const url = await client.authorizationUrl(checks);
    return client.signIn(await callbackFrom(url, answer), checks);
  }

  it('sends the browser to GitHub with PKCE S256, state and the scopes, and no nonce', async () => {
    const app = github.registerApp({ callbackUrl: CALLBACK });
    const client = clientFor(app);
    expect(client.isOpenIdConnect).toBe(false);
    const url = await client.authorizationUrl({ state: 'the-state', codeVerifier: 'v'.repeat(43) });
    expect(`${url.origin}${url.pathname}`).toBe(`${github.baseUrl}/login/oauth/authorize`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: app.clientId,
      response_type: 'code',
      redirect_uri: CALLBACK,
      scope: 'read:user user:email',
      state: 'the-state',
      code_challenge: await oidc.calculatePKCECodeChallenge('v'.repeat(43)),
      code_challenge_method: 'S256',
    });
  });

  it("signs the person in as GitHub's numeric id, with the scopes GitHub granted", async () => {
    const app = github.registerApp({ callbackUrl: CALLBACK });
    const result = await signIn(clientFor(app));
    expect(result).toMatchObject({
      provider: 'github',
      issuer: github.apiUrl,
      subject: '42',
      displayName: 'hubot',
      login: 'hubot',
      profile: { email: 'hubot@example.com', emailVerified: true },
      scopes: ['read:user', 'user:email'],
    });
    expect(result.accessToken).toMatch(/^gho_/);
    expect(result.refreshToken).toBeUndefined();
    expect(result.expiresAt).toBeUndefined();
  });

  it("keeps a GitHub App's expiring token and its refresh token", async () => {
    const app = github.registerApp({ callbackUrl: CALLBACK, kind: 'github-app' });
    const started = Date.now();
    const result = await signIn(clientFor(app));
    expect(result.subject).toBe('42');
    expect(result.refreshToken).toMatch(/^ghr_/);
    expect(result.scopes).toEqual([]);
    const lifetime = (result.expiresAt?.getTime() ?? 0) - started;
    expect(lifetime).toBeGreaterThan(8 * 3600_000 - 60_000);
    expect(lifetime).toBeLessThanOrEqual(8 * 3600_000 + 1000);
  });

  it('fails the sign-in as rejected when GitHub refuses the exchange with status 200 and an error', async () => {
    const app = github.registerApp({ callbackUrl: CALLBACK });
    // Read as the OAuth error it is (RFC 6749 5.2), not as a malformed success.
    await expect(signIn(clientFor(app, 'not-the-secret'))).rejects.toMatchObject({
      name: 'UpstreamError',
      failure: 'rejected',
      cause: expect.objectContaining({ error: 'incorrect_client_credentials', status: 400 }),
    });
  });

  it('fails the sign-in as denied when the person cancels at GitHub', async () => {
    const app = github.registerApp({ callbackUrl: CALLBACK });
    await expect(signIn(clientFor(app), '0')).rejects.toMatchObject({
      name: 'UpstreamError',
      failure: 'denied',
    });
  });
});
