import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startLoopbackServer, type LoopbackServer } from '@portcullis/testing';
import * as oidc from 'openid-client';
import type { UpstreamOptions } from '../../src/proxy.options.js';
import { OAuth2Provider, type OAuth2Settings } from '../../src/upstream/providers/oauth2.provider.js';

/** What the UserInfo endpoint says for each access token. */
const ANSWERS: Record<string, { status: number; body: unknown }> = {
  numeric: {
    status: 200,
    body: { id: 4242, login: 'ada', name: 'Ada', email: 'ada@example.com', email_verified: true },
  },
  text: { status: 200, body: { sub: 'user-1', email: 'u@example.com' } },
  missing: { status: 200, body: { login: 'nobody' } },
  fraction: { status: 200, body: { id: 1.5 } },
  expired: { status: 401, body: { error: 'invalid_token' } },
};

describe('a plain OAuth 2.0 upstream (UPSTREAM_PROVIDER=oauth2)', () => {
  let api: LoopbackServer;
  let config: oidc.Configuration;

  const providerWith = (subjectClaim: string) => {
    const settings: OAuth2Settings = {
      authorizationEndpoint: `${api.url}/authorize`,
      tokenEndpoint: `${api.url}/token`,
      userinfoEndpoint: `${api.url}/me`,
      subjectClaim,
      tokenEndpointAuthMethod: 'client_secret_basic',
    };
    const upstream = {
      issuer: api.url,
      provider: { name: 'oauth2', ...settings },
    } as unknown as UpstreamOptions;
    return new OAuth2Provider(upstream, settings);
  };
  const identity = (subjectClaim: string, token: string) =>
    providerWith(subjectClaim).identity(config, { access_token: token } as never);

  beforeAll(async () => {
    api = await startLoopbackServer((request, response) => {
      const token = /^Bearer (.+)$/.exec(String(request.headers.authorization ?? ''))?.[1] ?? '';
      const answer = ANSWERS[token] ?? { status: 401, body: {} };
      response.writeHead(answer.status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(answer.body));
    });
    config = new oidc.Configuration(await providerWith('sub').metadata(), 'proxy', 'secret');
    oidc.allowInsecureRequests(config);
  });
  afterAll(async () => {
    await api?.close();
  });

  it('names the person by the configured member of the UserInfo answer, a number read as text', async () => {
    expect(await identity('id', 'numeric')).toEqual({
      issuer: api.url,
      subject: '4242',
      displayName: 'ada',
      login: 'ada',
      profile: { name: 'Ada', email: 'ada@example.com', emailVerified: true },
    });
    expect(await identity('sub', 'text')).toMatchObject({
      subject: 'user-1',
      profile: { email: 'u@example.com', emailVerified: false },
    });
    expect(api.requests.every((request) => request.path === '/me')).toBe(true);
  });

  it('refuses an answer without that member, with one that is no identifier, and a refused token', async () => {
    for (const [claim, token] of [
      ['id', 'missing'],
      ['id', 'fraction'],
      ['sub', 'numeric'],
      ['sub', 'expired'],
    ] as const) {
      await expect(identity(claim, token)).rejects.toMatchObject({
        name: 'UpstreamError',
        failure: 'rejected',
      });
    }
  });
});
