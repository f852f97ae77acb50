import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { bearer, bearerChallengeOf } from '../support/http.js';
import { startProtectedTestApp, type ProtectedTestApp } from '../support/protected-test-app.js';
import {
  TEST_AUTHORIZATION_SERVER_PATHS as PATHS,
  startTestAuthorizationServer,
  type TestAuthorizationServer,
} from '@portcullis/testing';

const RESOURCE = 'http://127.0.0.1:9/api';
const CLIENT = { id: 'resource-server', secret: 'rs-secret' };

describe('opaque tokens through RFC 7662 introspection', () => {
  let as: TestAuthorizationServer;
  let app: ProtectedTestApp;
  let wrongCredentials: ProtectedTestApp;
  const now = () => Math.floor(Date.now() / 1000);
  const active = (overrides: Record<string, unknown> = {}) => ({
    active: true,
    token_type: 'Bearer',
    iss: as.issuer,
    sub: 'carol',
    client_id: 'client-9',
    aud: RESOURCE,
    scope: 'notes:read',
    exp: now() + 300,
    ...overrides,
  });
  const me = (target: ProtectedTestApp, token: string) =>
    fetch(`${target.url}/api/me`, { headers: bearer(token) });

  beforeAll(async () => {
    as = await startTestAuthorizationServer({ audience: RESOURCE, introspectionClient: CLIENT });
    app = await startProtectedTestApp({
      resource: RESOURCE,
      authorizationServers: [as.issuer],
      tokens: { introspection: { clientId: CLIENT.id, clientSecret: CLIENT.secret } },
    });
    wrongCredentials = await startProtectedTestApp({
      resource: RESOURCE,
      authorizationServers: [as.issuer],
      tokens: { introspection: { clientId: CLIENT.id, clientSecret: 'wrong' } },
    });
  });
  afterAll(async () => {
    await app?.close();
    await wrongCredentials?.close();
    await as?.close();
  });

  it('accepts an active opaque token and describes it from the introspection response', async () => {
    as.setIntrospection('opaque-active-1', active());
    const response = await me(app, 'opaque-active-1');
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      subject: 'carol',
      clientId: 'client-9',
      scopes: ['notes:read'],
      validatedBy: 'introspection',
    });
  });

  it('asks once per token and then answers from the cache until it expires', async () => {
    as.setIntrospection('opaque-cached', active());
    const before = as.hits(PATHS.introspection);
    expect((await me(app, 'opaque-cached')).status).toBe(200);
    expect((await me(app, 'opaque-cached')).status).toBe(200);
    expect(as.hits(PATHS.introspection)).toBe(before + 1);
  });

  it('asks once for concurrent requests with one token, and once for a replayed inactive token', async () => {
    as.setIntrospection('opaque-concurrent', active());
    let before = as.hits(PATHS.introspection);
    const statuses = await Promise.all(Array.from({ length: 20 }, () => me(app, 'opaque-concurrent')));
    expect(statuses.map((response) => response.status)).toEqual(Array(20).fill(200));
    expect(as.hits(PATHS.introspection)).toBe(before + 1);

    as.setIntrospection('opaque-dead', { active: false });
    before = as.hits(PATHS.introspection);
    for (let i = 0; i < 5; i += 1) {
      const response = await me(app, 'opaque-dead');
      expect(response.status).toBe(401);
      expect(bearerChallengeOf(response).params['error']).toBe('invalid_token');
    }
    const concurrent = await Promise.all(Array.from({ length: 10 }, () => me(app, 'opaque-dead')));
    expect(concurrent.map((response) => response.status)).toEqual(Array(10).fill(401));
    expect(as.hits(PATHS.introspection)).toBe(before + 1);
  });

  it.each<[string, Record<string, unknown> | undefined]>([
    ['an inactive token', { active: false }],
    ['an unknown token', undefined],
    ['a token for another resource', { aud: 'http://127.0.0.1:9/other' }],
    ['a token without an audience', { aud: undefined }],
    ['a refresh token', { token_type: 'refresh_token' }],
    ['a token from another issuer', { iss: 'http://127.0.0.1:1' }],
    ['an expired token', { exp: 1_000 }],
    ['a token without exp', { exp: undefined }],
    ['a token without sub', { sub: undefined }],
  ])('rejects %s with 401 invalid_token', async (name, overrides) => {
    const token = `opaque-${name.replaceAll(' ', '-')}`;
    if (overrides) {
      const response = { ...active(), ...overrides };
      for (const [key, value] of Object.entries(response))
        if (value === undefined) delete response[key as keyof typeof response];
      as.setIntrospection(token, response);
    }
    const response = await me(app, token);
    expect(response.status).toBe(401);
    expect(bearerChallengeOf(response).params['error']).toBe('invalid_token');
  });

  it('answers 503, not 401, when the authorization server refuses the resource server’s credentials', async () => {
    as.setIntrospection('opaque-good', active());
    const response = await me(wrongCredentials, 'opaque-good');
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({ error: 'temporarily_unavailable' });
  });
});

describe('a resource without introspection credentials', () => {
  it('rejects opaque tokens as invalid_token without contacting anyone', async () => {
    const as = await startTestAuthorizationServer({ audience: RESOURCE });
    const app = await startProtectedTestApp({ resource: RESOURCE, authorizationServers: [as.issuer] });
    try {
      const response = await fetch(`${app.url}/api/me`, { headers: bearer('opaque-token') });
      expect(response.status).toBe(401);
      expect(as.hits(PATHS.metadata) + as.hits(PATHS.introspection)).toBe(0);
    } finally {
      await app.close();
      await as.close();
    }
  });
});

describe('introspection mode', () => {
  it('sends JWT access tokens to introspection too', async () => {
    const as = await startTestAuthorizationServer({ audience: RESOURCE, introspectionClient: CLIENT });
    const app = await startProtectedTestApp({
      resource: RESOURCE,
      authorizationServers: [as.issuer],
      tokens: { mode: 'introspection', introspection: { clientId: CLIENT.id, clientSecret: CLIENT.secret } },
    });
    try {
      const jwt = await as.mint();
      // A valid signature is not enough: the authorization server says it is no longer active.
      as.setIntrospection(jwt, { active: false });
      expect((await fetch(`${app.url}/api/me`, { headers: bearer(jwt) })).status).toBe(401);
      expect(as.hits(PATHS.introspection)).toBe(1);
      expect(as.hits(PATHS.jwks)).toBe(0);
    } finally {
      await app.close();
      await as.close();
    }
  });
});
