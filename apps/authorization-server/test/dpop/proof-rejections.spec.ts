import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  startAuthorizationServer,
  type AuthorizationServerFixture,
  type TestClient,
} from '../support/authorization-server.fixture.js';
import {
  codeFor,
  codeForm,
  confirmationOf,
  dpopKey,
  expectRefusedWithoutTrace,
  proof,
  refreshForm,
  symmetricProof,
  tokenEndpoint,
  tokenRequestWithProof,
  unsignedProof,
  type DpopKey,
} from './dpop.helpers.js';

/**
 * RFC 9449 4.3 at the token endpoint: every proof that fails a check is `invalid_dpop_proof`, issues nothing, and
 * leaves the code redeemable by the same request with a good proof.
 */
describe('the token endpoint refuses a bad DPoP proof (RFC 9449 4.3)', () => {
  let as: AuthorizationServerFixture;
  let user: { username: string; password: string };
  let client: TestClient;
  let key: DpopKey;
  beforeAll(async () => {
    as = await startAuthorizationServer({ env: { EXTENSIONS: 'dpop' } });
    user = await as.createUser();
    client = await as.createClient();
    key = await dpopKey();
  });
  afterAll(async () => {
    await as?.close();
  });

  const cases: [string, (url: string) => Promise<string | string[]>, RegExp][] = [
    ['with another method (htm GET)', (url) => proof(key, url, { htm: 'GET' }), /htm/],
    ['for another path (htu /authorize)', (url) => proof(key, url.replace(/\/token$/, '/authorize')), /htu/],
    ['for the same path on another host', (url) => proof(key, url.replace('localhost', '127.0.0.1')), /htu/],
    ['made two minutes ago (stale iat)', (url) => proof(key, url, { iatOffset: -120 }), /too old/],
    ['made two minutes ahead (future iat)', (url) => proof(key, url, { iatOffset: 120 }), /future/],
    ['without a signature (alg none)', async (url) => unsignedProof(key, url), /alg/],
    ['MACed with HS256', (url) => symmetricProof(key, url), /alg/],
    [
      'whose jwk holds the private key (d)',
      (url) => proof(key, url, { header: { jwk: key.privateJwk } }),
      /public key/,
    ],
    ['of another JWT type (typ JWT)', (url) => proof(key, url, { header: { typ: 'JWT' } }), /typ/],
    [
      'twice, in two DPoP header fields',
      async (url) => [await proof(key, url), await proof(key, url)],
      /exactly one/,
    ],
    ['that is not a JWT', async () => 'not-a-jwt', /JWT/],
  ];

  it.each(cases)('a proof %s', async (_name, make, description) => {
    const issued = await codeFor(as, client, user);
    const bad = await make(tokenEndpoint(as));
    const refused = await expectRefusedWithoutTrace(
      as,
      () => tokenRequestWithProof(as, codeForm(client, issued), bad),
      'invalid_dpop_proof',
    );
    expect(refused.body['error_description']).toMatch(description);
    const good = await tokenRequestWithProof(
      as,
      codeForm(client, issued),
      await proof(key, tokenEndpoint(as)),
    );
    expect(good.status).toBe(200);
    expect(confirmationOf(good.body['access_token'])).toEqual({ jkt: key.jkt });
  });

  it('a proof whose htu names the Host the request claims instead of the published token endpoint', async () => {
    const issued = await codeFor(as, client, user);
    const elsewhere = 'http://as.attacker.example/token';
    await expectRefusedWithoutTrace(
      as,
      async () =>
        tokenRequestWithProof(as, codeForm(client, issued), await proof(key, elsewhere), {
          host: 'as.attacker.example',
        }),
      'invalid_dpop_proof',
    );
    const good = await tokenRequestWithProof(
      as,
      codeForm(client, issued),
      await proof(key, tokenEndpoint(as)),
    );
    expect(good.status).toBe(200);
  });

  it('a proof used before (the same jti), even for another request', async () => {
    const issued = await codeFor(as, client, user);
    const once = await proof(key, tokenEndpoint(as));
    const first = await tokenRequestWithProof(as, codeForm(client, issued), once);
    expect(first.status).toBe(200);
    const replayed = await expectRefusedWithoutTrace(
      as,
      () => tokenRequestWithProof(as, refreshForm(client, first.body['refresh_token'] as string), once),
      'invalid_dpop_proof',
    );
    expect(replayed.body['error_description']).toMatch(/used before/);
    const fresh = await tokenRequestWithProof(
      as,
      refreshForm(client, first.body['refresh_token'] as string),
      await proof(key, tokenEndpoint(as)),
    );
    expect(fresh.status).toBe(200);
  });

  it('a bad proof before anything else of the grant: a wrong code_verifier with a bad proof burns nothing either', async () => {
    const issued = await codeFor(as, client, user);
    await expectRefusedWithoutTrace(
      as,
      async () =>
        tokenRequestWithProof(
          as,
          codeForm(client, issued, { code_verifier: 'x'.repeat(43) }),
          await proof(key, tokenEndpoint(as), { htm: 'PUT' }),
        ),
      'invalid_dpop_proof',
    );
    const good = await tokenRequestWithProof(
      as,
      codeForm(client, issued),
      await proof(key, tokenEndpoint(as)),
    );
    expect(good.status).toBe(200);
  });
});

describe('DPOP_PROOF_MAX_AGE', () => {
  let as: AuthorizationServerFixture;
  beforeAll(async () => {
    as = await startAuthorizationServer({ env: { EXTENSIONS: 'dpop', DPOP_PROOF_MAX_AGE: '10' } });
  });
  afterAll(async () => {
    await as?.close();
  });

  it('refuses a proof older than it says (30 s for 10), which the default 60 s would take', async () => {
    const user = await as.createUser();
    const client = await as.createClient();
    const key = await dpopKey();
    const issued = await codeFor(as, client, user);
    await expectRefusedWithoutTrace(
      as,
      async () =>
        tokenRequestWithProof(
          as,
          codeForm(client, issued),
          await proof(key, tokenEndpoint(as), { iatOffset: -30 }),
        ),
      'invalid_dpop_proof',
    );
    const good = await tokenRequestWithProof(
      as,
      codeForm(client, issued),
      await proof(key, tokenEndpoint(as)),
    );
    expect(good.status).toBe(200);
  });
});
