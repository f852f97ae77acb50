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
    jwksCacheControl?: string;
  } = {},
): Promise<{ as: TestAuthorizationServer; app: ProtectedTestApp }> {
  const as = await startTestAuthorizationServer({
    audience: RESOURCE,
    ...(options.discovery ? { discovery: options.discovery } : {}),
    ...(options.claimedIssuer ? { claimedIssuer: options.claimedIssuer } : {}),
    ...(options.jwksCacheControl ? { jwksCacheControl: options.jwksCacheControl } : {}),
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
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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
    const { as, app } = await stack({ tokens: { jwks: { cooldownMs: 1_000 } } });
    const retired = as.key;
    const first = await as.mint();
    expect((await me(app, first)).status).toBe(200);
    // Rotate, and past the cooldown let a token with the new key make the resource replace its key set with the new
    // one only.
    await as.rotate();
    await sleep(1_100);
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

  /** The answer is 401 invalid_token with the resource's challenge, and no Retry-After: the token is at fault. */
  async function expectInvalidToken(response: Response, description: string): Promise<void> {
    expect(response.status).toBe(401);
    const challenge = bearerChallengeOf(response);
    expect(challenge.params['error']).toBe('invalid_token');
    expect(challenge.params['error_description']).toContain(description);
    expect(challenge.params['resource_metadata']).toBeDefined();
    expect(response.headers.get('retry-after')).toBeNull();
    expect(await response.json()).toMatchObject({ error: 'invalid_token' });
  }

  it('refuses kid=123 with 401 invalid_token after one fetch, nothing cached and the authorization server up', async () => {
    const { as, app } = await stack();
    const forged = await as.mint({ key: await createSigningKey('123') });
    await expectInvalidToken(await me(app, forged), 'key this resource does not know');
    // The set fetched for this very token lacks the key: no second fetch to tell.
    expect(as.hits(PATHS.jwks)).toBe(1);
    // Again, and with another made-up kid: within the cooldown, answered from the set held.
    await expectInvalidToken(await me(app, forged), 'key this resource does not know');
    await expectInvalidToken(
      await me(app, await as.mint({ key: await createSigningKey('124') })),
      'key this resource does not know',
    );
    expect(as.hits(PATHS.jwks)).toBe(1);
  });

  it('refuses an unknown kid within the cooldown with 401, fetching nothing', async () => {
    const { as, app } = await stack({ tokens: { jwks: { cooldownMs: 60_000 } } });
    expect((await me(app, await as.mint())).status).toBe(200);
    expect(as.hits(PATHS.jwks)).toBe(1);
    // A key the authorization server signs with was published long enough before (a staged rotation) to be in any
    // set fetched within the cooldown: this one is not a key of the issuer.
    for (let attempt = 0; attempt < 20; attempt += 1) {
      const unknown = await me(app, await as.mint({ key: await createSigningKey(`unknown-${attempt}`) }));
      expect(unknown.status).toBe(401);
    }
    expect(as.hits(PATHS.jwks)).toBe(1);
  });

  it('fetches the set again for an unknown kid past the cooldown, once, and refuses the key it still lacks', async () => {
    const { as, app } = await stack({ tokens: { jwks: { cooldownMs: 1_000 } } });
    expect((await me(app, await as.mint())).status).toBe(200);
    await sleep(1_100);
    const rogue = await as.mint({ key: await createSigningKey('unknown-kid') });
    await expectInvalidToken(await me(app, rogue), 'key this resource does not know');
    expect(as.hits(PATHS.jwks)).toBe(2);
    await expectInvalidToken(await me(app, rogue), 'key this resource does not know');
    expect(as.hits(PATHS.jwks)).toBe(2);
  });

  it('refuses a token with an unknown kid issued long before the last fetch at once, with no fetch', async () => {
    const { as, app } = await stack({ tokens: { jwks: { cooldownMs: 1_000 } } });
    expect((await me(app, await as.mint())).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const old = await as.mint({
      key: await createSigningKey('unknown-kid'),
      claims: { iat: Math.floor(Date.now() / 1000) - 120 },
    });
    expect((await me(app, old)).status).toBe(401);
    expect(as.hits(PATHS.jwks)).toBe(1);
  });

  it('accepts a token signed with a key staged after its last fetch, fetching the set again past the cooldown', async () => {
    const { as, app } = await stack({ tokens: { jwks: { cooldownMs: 1_000 } } });
    expect((await me(app, await as.mint())).status).toBe(200);
    const staged = await createSigningKey();
    as.publish(staged);
    // The authorization server signs with a staged key only after the resource servers' cooldown (and cache age).
    await sleep(1_100);
    expect((await me(app, await as.mint({ key: staged }))).status).toBe(200);
    expect(as.hits(PATHS.jwks)).toBe(2);
    // Another unknown kid right after that refetch is inside the new cooldown: 401 without a fetch.
    expect((await me(app, await as.mint({ key: await createSigningKey() }))).status).toBe(401);
    expect(as.hits(PATHS.jwks)).toBe(2);
  });

  it('picks up a rotated key with one refetch once the cooldown has passed', async () => {
    const { as, app } = await stack({ tokens: { jwks: { cooldownMs: 1_000 } } });
    expect((await me(app, await as.mint())).status).toBe(200);
    await as.rotate();
    await sleep(1_100);
    expect((await me(app, await as.mint())).status).toBe(200);
    expect(as.hits(PATHS.jwks)).toBe(2);
  });

  it('refuses a forged token naming its own key (jwk, jku, x5u) with 401 before fetching anything', async () => {
    const { as, app } = await stack();
    const attacker = await createSigningKey('attacker');
    const headers = [
      { jwk: attacker.publicJwk },
      { jwk: attacker.publicJwk, kid: undefined },
      { jku: `${as.issuer}/attacker-jwks` },
      { x5u: `${as.issuer}/attacker-certificate` },
    ];
    for (const header of headers) {
      await expectInvalidToken(await me(app, await as.mint({ key: attacker, header })), 'names its own key');
    }
    expect(as.hits(PATHS.metadata) + as.hits(PATHS.jwks)).toBe(0);
    expect(as.hits('/attacker-jwks') + as.hits('/attacker-certificate')).toBe(0);
  });

  describe('a token without kid (RFC 7515 Section 4.1.4: kid is optional)', () => {
    const noKid = { kid: undefined };

    it('verifies with either key of a rotation overlap, and refuses one no published key signed', async () => {
      const { as, app } = await stack();
      const retiring = as.key;
      const before = await as.mint({ header: noKid });
      // A rotation: the new key signs, the old one stays published until its tokens have expired.
      await as.rotate();
      as.publish(retiring);
      const after = await as.mint({ header: noKid });
      expect((await me(app, before)).status).toBe(200);
      expect((await me(app, after)).status).toBe(200);
      // Both verified from the one set fetched: the overlap costs no fetch.
      expect(as.hits(PATHS.jwks)).toBe(1);
      await expectInvalidToken(
        await me(app, await as.mint({ key: await createSigningKey(), header: noKid })),
        'could not be verified',
      );
    });

    it('verifies with a key staged after the set was fetched, fetching the set again past the cooldown', async () => {
      const { as, app } = await stack({ tokens: { jwks: { cooldownMs: 1_000 } } });
      expect((await me(app, await as.mint({ header: noKid }))).status).toBe(200);
      const staged = await createSigningKey();
      as.publish(staged);
      await sleep(1_100);
      // The set held has one key, which does not verify the token: it may have been signed with a key published
      // since, as with an unknown kid.
      expect((await me(app, await as.mint({ key: staged, header: noKid }))).status).toBe(200);
      expect(as.hits(PATHS.jwks)).toBe(2);
      // Within the new cooldown, a token no published key signed costs no fetch.
      expect((await me(app, await as.mint({ key: await createSigningKey(), header: noKid }))).status).toBe(
        401,
      );
      expect(as.hits(PATHS.jwks)).toBe(2);
    });

    it('tries at most three candidate keys: with more, it is refused without a signature check', async () => {
      const { as, app } = await stack();
      for (let key = 0; key < 3; key += 1) as.publish(await createSigningKey());
      await expectInvalidToken(
        await me(app, await as.mint({ header: noKid })),
        'names no key (kid), and more than 3',
      );
      // With a kid, the same key verifies.
      expect((await me(app, await as.mint())).status).toBe(200);
    });
  });

  it('fetches the key set again once the max-age the authorization server sends has passed, within its own bounds', async () => {
    const { as, app } = await stack({
      tokens: { jwks: { cacheMaxAgeMs: 60_000, cooldownMs: 100 } },
      jwksCacheControl: 'public, max-age=1',
    });
    expect((await me(app, await as.mint())).status).toBe(200);
    expect((await me(app, await as.mint())).status).toBe(200);
    expect(as.hits(PATHS.jwks)).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    // Past the key set's max-age: used once more while it is fetched again in the background.
    expect((await me(app, await as.mint())).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(as.hits(PATHS.jwks)).toBe(2);

    // A key set that may not be stored is still kept for the cooldown: not one fetch per request.
    const { as: noStore, app: behind } = await stack({
      tokens: { jwks: { cacheMaxAgeMs: 60_000, cooldownMs: 60_000 } },
      jwksCacheControl: 'no-store',
    });
    for (let attempt = 0; attempt < 3; attempt += 1) {
      expect((await me(behind, await noStore.mint())).status).toBe(200);
    }
    expect(noStore.hits(PATHS.jwks)).toBe(1);
  });

  it('keeps validating tokens signed with known keys while the authorization server is away, past the cache age', async () => {
    const { as, app } = await stack({
      tokens: { jwks: { cacheMaxAgeMs: 1_000, cooldownMs: 1_000 }, discovery: { maxAgeMs: 100 } },
    });
    const known = await as.mint();
    const later = await as.mint({ claims: { jti: 'another' } });
    expect((await me(app, known)).status).toBe(200);
    as.failJwks(500);
    await sleep(1_100);
    // The keys and the metadata are past their age and cannot be fetched again: the ones held keep verifying.
    expect((await me(app, later)).status).toBe(200);
    // A key it never saw, the set held past the cooldown, cannot be checked while the key set fails: 503, not 401.
    expect((await me(app, await as.mint({ key: await createSigningKey('new-kid') }))).status).toBe(503);
  });

  it('stops trusting the keys it holds once they are older than their age plus the stale-if-error bound', async () => {
    const { as, app } = await stack({
      tokens: {
        jwks: { cacheMaxAgeMs: 1_000, staleIfErrorMs: 200, cooldownMs: 1_000 },
        discovery: { maxAgeMs: 100, failureBackoffMs: 0 },
      },
    });
    const token = await as.mint();
    const later = await as.mint({ claims: { jti: 'later' } });
    expect((await me(app, token)).status).toBe(200);
    as.failJwks(500);
    await sleep(1_300);
    const refused = await me(app, later);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).not.toBeNull();
    // Once the keys can be fetched again, and the backoff after the failed fetch has passed (a second at least,
    // though 0 is configured), they verify again.
    as.failJwks(undefined);
    await sleep(1_100);
    expect((await me(app, await as.mint({ claims: { jti: 'again' } }))).status).toBe(200);
  });

  it('fetches keys too old to use once per backoff while the key set fails, not once per request', async () => {
    const { as, app } = await stack({
      tokens: {
        jwks: { cacheMaxAgeMs: 1_000, staleIfErrorMs: 100, cooldownMs: 1_000 },
        discovery: { failureBackoffMs: 60_000 },
      },
    });
    expect((await me(app, await as.mint())).status).toBe(200);
    expect(as.hits(PATHS.jwks)).toBe(1);
    as.failJwks(500);
    await sleep(1_200);
    for (let attempt = 0; attempt < 4; attempt += 1) {
      const refused = await me(app, await as.mint());
      expect(refused.status).toBe(503);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    // One failed fetch; the requests after it, within the backoff, fetch nothing.
    expect(as.hits(PATHS.jwks)).toBe(2);
  });

  it('keeps a key set about a second at least when told 0: a cooldown of 0 and max-age=0', async () => {
    const { as, app } = await stack({
      tokens: { jwks: { cooldownMs: 0, cacheMaxAgeMs: 0 } },
      jwksCacheControl: 'max-age=0',
    });
    expect((await me(app, await as.mint())).status).toBe(200);
    for (let attempt = 0; attempt < 5; attempt += 1) {
      expect(
        (await me(app, await as.mint({ key: await createSigningKey(`made-up-${attempt}`) }))).status,
      ).toBe(401);
      expect((await me(app, await as.mint())).status).toBe(200);
    }
    // Neither the made-up kids nor the good tokens fetched the set again within that second.
    expect(as.hits(PATHS.jwks)).toBe(1);
    await sleep(1_100);
    expect((await me(app, await as.mint({ key: await createSigningKey('made-up-later') }))).status).toBe(401);
    expect(as.hits(PATHS.jwks)).toBe(2);
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

  it('answers 503 when the key set is not a JWK set, and validates once it is again', async () => {
    const { as, app } = await stack({ tokens: { discovery: { failureBackoffMs: 0 } } });
    as.failJwks(200);
    const broken = await me(app, await as.mint({ key: await createSigningKey('123') }));
    expect(broken.status).toBe(503);
    expect(broken.headers.get('www-authenticate')).toBeNull();
    expect(await broken.json()).toMatchObject({ error: 'temporarily_unavailable' });
    as.failJwks(undefined);
    // Within a second of the failed fetch (the least backoff, though 0 is configured), nothing is fetched.
    expect((await me(app, await as.mint())).status).toBe(503);
    expect(as.hits(PATHS.jwks)).toBe(1);
    await sleep(1_100);
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
