import { createServer, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from '@jest/globals';
import {
  createSigningKey,
  TEST_AUTHORIZATION_SERVER_PATHS as PATHS,
  startTestAuthorizationServer,
  type TestAuthorizationServer,
} from '@portcullis/testing';
import { bearer, bearerChallengeOf } from '../support/http.js';
import { startProtectedTestApp, type ProtectedTestApp } from '../support/protected-test-app.js';
import type { TokenOptions } from '../../src/index.js';

const RESOURCE = 'http://127.0.0.1:9/api';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
const cleanup: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const close of cleanup.splice(0).reverse()) await close();
});

async function stack(
  options: {
    tokens?: TokenOptions;
    discovery?: 'rfc8414' | 'openid-configuration';
    claimedIssuer?: string;
  } = {},
): Promise<{ as: TestAuthorizationServer; app: ProtectedTestApp }> {
  const as = await startTestAuthorizationServer({
    audience: RESOURCE,
    ...(options.discovery ? { discovery: options.discovery } : {}),
    ...(options.claimedIssuer ? { claimedIssuer: options.claimedIssuer } : {}),
  });
  cleanup.push(() => as.close());
  const app = await startProtectedTestApp({
    resource: RESOURCE,
    authorizationServers: [as.issuer],
    ...(options.tokens ? { tokens: options.tokens } : {}),
  });
  cleanup.push(() => app.close());
  return { as, app };
}

const me = (app: ProtectedTestApp, token: string) => fetch(`${app.url}/api/me`, { headers: bearer(token) });

describe('JWT access token validation', () => {
  it('contacts the authorization server only when the first token needs its keys', async () => {
    const { as, app } = await stack();
    expect(as.hits(PATHS.metadata)).toBe(0);
    expect(as.hits(PATHS.jwks)).toBe(0);
    expect((await me(app, await as.mint())).status).toBe(200);
    expect(as.hits(PATHS.metadata)).toBe(1);
    expect(as.hits(PATHS.jwks)).toBe(1);
  });

  it('rejects a structurally invalid token before fetching anything', async () => {
    const { as, app } = await stack();
    const token = await as.mint();
    const [header, claims] = token.split('.');
    for (const broken of [
      `${header}.${claims}`,
      `${token}.${claims}`,
      `${header}.${claims}.`,
      'x'.repeat(10_240),
    ]) {
      const response = await me(app, broken);
      expect(response.status).toBe(401);
      expect(bearerChallengeOf(response).params['error']).toBe('invalid_token');
    }
    expect(as.hits(PATHS.metadata) + as.hits(PATHS.jwks)).toBe(0);
  });

  it('serves a repeated token from its cache, with no key fetch and no signature check', async () => {
    const { as, app } = await stack({ tokens: { jwks: { cooldownMs: 0 } } });
    const retired = as.key;
    const first = await as.mint();
    expect((await me(app, first)).status).toBe(200);
    // Rotate, and let a token with the new key make the resource replace its key set with the new one only.
    await as.rotate();
    expect((await me(app, await as.mint())).status).toBe(200);
    const fetches = as.hits(PATHS.jwks);
    // Verifying again would fail: the old key is gone. The cached verdict answers, without any fetch.
    expect((await me(app, first)).status).toBe(200);
    expect(as.hits(PATHS.jwks)).toBe(fetches);
    // A different token signed with that old key is verified, and rejected.
    const previousKey = await me(app, await as.mint({ key: retired }));
    expect(previousKey.status).toBe(401);
    expect(bearerChallengeOf(previousKey).params['error_description']).toContain(
      'key this resource does not know',
    );
  });

  it('answers an unknown kid within the cooldown with 503 and Retry-After, fetching nothing, never 401', async () => {
    const { as, app } = await stack({ tokens: { jwks: { cooldownMs: 60_000 } } });
    expect((await me(app, await as.mint())).status).toBe(200);
    expect(as.hits(PATHS.jwks)).toBe(1);
    // Perhaps a key published since the fetch: the resource cannot tell yet, and a 401 would make the client
    // throw a good token away.
    const unknown = await me(app, await as.mint({ key: await createSigningKey('unknown-kid') }));
    expect(unknown.status).toBe(503);
    expect(Number(unknown.headers.get('retry-after'))).toBeGreaterThan(50);
    expect(unknown.headers.get('www-authenticate')).toBeNull();
    expect(await unknown.json()).toMatchObject({ error: 'temporarily_unavailable' });
    expect(as.hits(PATHS.jwks)).toBe(1);
  });

  it('refuses an unknown kid with 401 once a key set fetched after the cooldown lacks it', async () => {
    const { as, app } = await stack({ tokens: { jwks: { cooldownMs: 300 }, clockSkewSeconds: 0 } });
    expect((await me(app, await as.mint())).status).toBe(200);
    const rogue = await as.mint({ key: await createSigningKey('unknown-kid') });
    expect((await me(app, rogue)).status).toBe(503);
    // Past the cooldown and past the second the token was issued in (`iat` has whole seconds).
    await new Promise((resolve) => setTimeout(resolve, 1_400));
    // One refetch, made late enough after the token was issued: the key is not there, so it is the token's fault.
    const refused = await me(app, rogue);
    expect(refused.status).toBe(401);
    expect(bearerChallengeOf(refused).params['error_description']).toContain(
      'key this resource does not know',
    );
    expect(as.hits(PATHS.jwks)).toBe(2);
  });

  it('refuses a token with an unknown kid issued long before the last fetch at once, with no fetch', async () => {
    const { as, app } = await stack({ tokens: { jwks: { cooldownMs: 1_000 } } });
    expect((await me(app, await as.mint())).status).toBe(200);
    const old = await as.mint({
      key: await createSigningKey('unknown-kid'),
      claims: { iat: Math.floor(Date.now() / 1000) - 120 },
    });
    expect((await me(app, old)).status).toBe(401);
    expect(as.hits(PATHS.jwks)).toBe(1);
  });

  it('picks up a rotated key with one refetch once the cooldown has passed', async () => {
    const { as, app } = await stack({ tokens: { jwks: { cooldownMs: 200 } } });
    expect((await me(app, await as.mint())).status).toBe(200);
    await as.rotate();
    await new Promise((resolve) => setTimeout(resolve, 250));
    const rotated = await as.mint();
    expect((await me(app, rotated)).status).toBe(200);
    expect(as.hits(PATHS.jwks)).toBe(2);
    // Another unknown kid right after that refetch is inside the new cooldown: 503 without a fetch.
    expect((await me(app, await as.mint({ key: await createSigningKey() }))).status).toBe(503);
    expect(as.hits(PATHS.jwks)).toBe(2);
  });

  it('keeps validating tokens signed with known keys while the authorization server is away, past the cache age', async () => {
    const { as, app } = await stack({
      tokens: { jwks: { cacheMaxAgeMs: 100, cooldownMs: 100 }, discovery: { maxAgeMs: 100 } },
    });
    const known = await as.mint();
    const later = await as.mint({ claims: { jti: 'another' } });
    expect((await me(app, known)).status).toBe(200);
    as.failJwks(500);
    await new Promise((resolve) => setTimeout(resolve, 150));
    // The keys and the metadata are past their age and cannot be fetched again: the ones held keep verifying.
    expect((await me(app, later)).status).toBe(200);
    // A key it never saw cannot be checked while the key set fails: 503, not 401.
    expect((await me(app, await as.mint({ key: await createSigningKey('new-kid') }))).status).toBe(503);
  });

  it('stops trusting the keys it holds once they are older than their age plus the stale-if-error bound', async () => {
    const { as, app } = await stack({
      tokens: {
        jwks: { cacheMaxAgeMs: 100, staleIfErrorMs: 200, cooldownMs: 100 },
        discovery: { maxAgeMs: 100 },
      },
    });
    const token = await as.mint();
    const later = await as.mint({ claims: { jti: 'later' } });
    expect((await me(app, token)).status).toBe(200);
    as.failJwks(500);
    await new Promise((resolve) => setTimeout(resolve, 350));
    const refused = await me(app, later);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).not.toBeNull();
    // Once the keys can be fetched again, they verify again.
    as.failJwks(undefined);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await me(app, await as.mint({ claims: { jti: 'again' } }))).status).toBe(200);
  });

  it('rejects a token signed with the right kid but another key', async () => {
    const { as, app } = await stack();
    const impostor = { ...(await createSigningKey(as.key.kid)) };
    const response = await me(app, await as.mint({ key: impostor }));
    expect(response.status).toBe(401);
    expect(bearerChallengeOf(response).params['error']).toBe('invalid_token');
  });

  it('boots while the authorization server is down, answers 503 meanwhile, and validates once it is up', async () => {
    const port = await freePort();
    const issuer = `http://127.0.0.1:${port}`;
    const app = await startProtectedTestApp({
      resource: RESOURCE,
      authorizationServers: [issuer],
      tokens: { discovery: { failureBackoffMs: 0 } },
    });
    cleanup.push(() => app.close());
    const signingKey = await createSigningKey();
    const early = await startTestAuthorizationServer({ audience: RESOURCE, port });
    const token = await early.mint({ key: signingKey });
    await early.close();

    const down = await me(app, token);
    expect(down.status).toBe(503);
    expect(down.headers.get('www-authenticate')).toBeNull();
    expect(await down.json()).toMatchObject({ error: 'temporarily_unavailable' });
    expect(app.logger.lines.some((line) => line.includes('temporarily_unavailable'))).toBe(true);

    const as = await startTestAuthorizationServer({ audience: RESOURCE, port });
    cleanup.push(() => as.close());
    expect((await me(app, await as.mint())).status).toBe(200);
  });

  it('fetches a failing key set once per backoff, however many new tokens arrive', async () => {
    const { as, app } = await stack({ tokens: { discovery: { failureBackoffMs: 60_000 } } });
    as.failJwks(500);
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const response = await me(app, await as.mint());
      expect(response.status).toBe(503);
    }
    expect(as.hits(PATHS.jwks)).toBe(1);
  });

  it('falls back to OpenID Connect discovery when there is no RFC 8414 document', async () => {
    const { as, app } = await stack({ discovery: 'openid-configuration' });
    expect((await me(app, await as.mint())).status).toBe(200);
    expect(as.hits(PATHS.metadata)).toBe(1);
    expect(as.hits(PATHS.openIdConfiguration)).toBe(1);
  });

  it('never uses keys from metadata that names another issuer', async () => {
    const { as, app } = await stack({ claimedIssuer: 'http://127.0.0.1:1' });
    const response = await me(app, await as.mint());
    expect(response.status).toBe(503);
    expect(as.hits(PATHS.jwks)).toBe(0);
  });

  it('accepts only the configured algorithms', async () => {
    const { as, app } = await stack({ tokens: { algorithms: ['RS256'] } });
    const response = await me(app, await as.mint());
    expect(response.status).toBe(401);
    expect(as.hits(PATHS.jwks)).toBe(0);
  });
});
