import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startGithubFake, type GithubFake, type GithubFakeApp } from '@portcullis/testing';
import * as oidc from 'openid-client';
import { GithubProvider } from '../../src/upstream/providers/github.provider.js';
import type { ProviderIdentity } from '../../src/upstream/providers/upstream-provider.js';

describe("GitHub's API, asked with the person's token", () => {
  let github: GithubFake;
  let app: GithubFakeApp;
  let provider: GithubProvider;
  let config: oidc.Configuration;

  beforeAll(async () => {
    github = await startGithubFake({
      users: [
        {
          id: 1,
          login: 'mona',
          name: 'Mona\u0000Lisa',
          emails: [{ email: 'mona@example.com', primary: true, verified: true }],
          organizations: ['acme'],
          teams: ['acme/platform'],
        },
      ],
    });
    app = github.registerApp({ callbackUrl: 'http://127.0.0.1:9/upstream/callback' });
    provider = new GithubProvider({ baseUrl: github.baseUrl, apiUrl: github.apiUrl });
    config = new oidc.Configuration(await provider.metadata(), app.clientId, app.clientSecret);
    oidc.allowInsecureRequests(config);
  });
  afterAll(async () => {
    await github?.close();
  });

  /** A user token of mona's with `scopes`, through the fake's authorize, sign-in and authorize pages. */
  async function tokenWith(scopes: string): Promise<string> {
    const authorize = new URL(`${github.baseUrl}/login/oauth/authorize`);
    authorize.search = new URLSearchParams({ client_id: app.clientId, scope: scopes, state: 's' }).toString();
    const page = await (await fetch(authorize)).text();
    const authorization = /name="authorization" value="([0-9a-f]+)"/.exec(page)![1]!;
    const post = (path: string, body: Record<string, string>) =>
      fetch(`${github.baseUrl}${path}`, {
        method: 'POST',
        body: new URLSearchParams(body),
        redirect: 'manual',
      });
    await post('/session', { authorization, login: 'mona', password: 'password' });
    const back = new URL(
      (await post('/login/oauth/authorize', { authorization, authorize: '1' })).headers.get('location')!,
    );
    const tokens = await post('/login/oauth/access_token', {
      client_id: app.clientId,
      client_secret: app.clientSecret,
      code: back.searchParams.get('code')!,
    });
    // Without `Accept: application/json`, GitHub answers form-encoded.
    return new URLSearchParams(await tokens.text()).get('access_token')!;
  }

  const identityWith = async (scopes: string) => {
    const token = await tokenWith(scopes);
    return { token, identity: await provider.identity(config, { access_token: token } as never) };
  };

  it('names the person by numeric id within the API, with the login, the plain-text name and the verified address', async () => {
    const { identity } = await identityWith('read:user user:email');
    expect(identity).toEqual({
      issuer: github.apiUrl,
      subject: '1',
      displayName: 'mona',
      login: 'mona',
      // A name with a control character is not kept.
      profile: { email: 'mona@example.com', emailVerified: true },
    });
  });

  it('keeps no address without the user:email scope', async () => {
    const { identity } = await identityWith('read:user');
    expect(identity.profile).toEqual({});
  });

  it('answers organization and team membership with read:org, and no without it', async () => {
    const withOrg = await identityWith('read:user read:org');
    const member = (identity: ProviderIdentity, token: string, group: string) =>
      provider.isMember(config, { accessToken: token }, identity, group);
    expect(await member(withOrg.identity, withOrg.token, 'acme')).toBe(true);
    expect(await member(withOrg.identity, withOrg.token, 'acme/platform')).toBe(true);
    expect(await member(withOrg.identity, withOrg.token, 'acme/security')).toBe(false);
    expect(await member(withOrg.identity, withOrg.token, 'other')).toBe(false);
    expect(await member(withOrg.identity, withOrg.token, '../user')).toBe(false);
    const without = await identityWith('read:user');
    expect(await member(without.identity, without.token, 'acme')).toBe(false);
  });

  it('refuses a token GitHub does not know', async () => {
    await expect(provider.identity(config, { access_token: 'gho_unknown' } as never)).rejects.toMatchObject({
      name: 'UpstreamError',
      failure: 'rejected',
    });
  });
});
