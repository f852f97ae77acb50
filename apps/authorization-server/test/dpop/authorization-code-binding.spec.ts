import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { HeadlessUserAgent } from '@portcullis/testing';
import {
  authorizationRequest,
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
  tokenEndpoint,
  tokenRequestWithProof,
} from './dpop.helpers.js';

/** RFC 9449 10: `dpop_jkt` binds the authorization code to a key. */
describe('dpop_jkt at the authorization endpoint (RFC 9449 10)', () => {
  let as: AuthorizationServerFixture;
  let user: { username: string; password: string };
  let client: TestClient;
  beforeAll(async () => {
    as = await startAuthorizationServer({ env: { EXTENSIONS: 'dpop' } });
    user = await as.createUser();
    client = await as.createClient({ redirectUris: ['https://app.example.com/cb'] });
  });
  afterAll(async () => {
    await as?.close();
  });

  it('keeps the key with the code and redeems it with a proof of that key', async () => {
    const key = await dpopKey();
    const issued = await codeFor(as, client, user, { dpop_jkt: key.jkt });
    const stored = await as.prisma.authorizationCode.findMany({
      where: { clientId: client.clientId, consumedAt: null },
    });
    expect(stored.map((code) => code.confirmation)).toEqual([{ jkt: key.jkt }]);
    const response = await tokenRequestWithProof(
      as,
      codeForm(client, issued),
      await proof(key, tokenEndpoint(as)),
    );
    expect(response.status).toBe(200);
    expect(confirmationOf(response.body['access_token'])).toEqual({ jkt: key.jkt });
  });

  it('refuses the code with a proof of another key (invalid_grant) and without a proof (invalid_dpop_proof), leaving it redeemable', async () => {
    const key = await dpopKey();
    const other = await dpopKey();
    const issued = await codeFor(as, client, user, { dpop_jkt: key.jkt });
    const mismatch = await expectRefusedWithoutTrace(
      as,
      async () => tokenRequestWithProof(as, codeForm(client, issued), await proof(other, tokenEndpoint(as))),
      'invalid_grant',
    );
    expect(mismatch.body['error_description']).toBe('this authorization code is bound to another key');
    await expectRefusedWithoutTrace(
      as,
      () => tokenRequestWithProof(as, codeForm(client, issued), undefined),
      'invalid_dpop_proof',
    );
    // The refusals consumed nothing and counted no replay: the key holder still redeems it.
    const response = await tokenRequestWithProof(
      as,
      codeForm(client, issued),
      await proof(key, tokenEndpoint(as)),
    );
    expect(response.status).toBe(200);
  });

  it('does not let a thief of a redeemed code revoke the grant without the key', async () => {
    const key = await dpopKey();
    const issued = await codeFor(as, client, user, { dpop_jkt: key.jkt });
    const redeemed = await tokenRequestWithProof(
      as,
      codeForm(client, issued),
      await proof(key, tokenEndpoint(as)),
    );
    expect(redeemed.status).toBe(200);
    const thief = await dpopKey();
    await expectRefusedWithoutTrace(
      as,
      async () => tokenRequestWithProof(as, codeForm(client, issued), await proof(thief, tokenEndpoint(as))),
      'invalid_grant',
    );
  });

  it.each([
    ['too short', 'abc'],
    ['not base64url', `${'a'.repeat(42)}+`],
    ['too long', 'a'.repeat(44)],
  ])(
    'sends a malformed dpop_jkt (%s) back to the client as invalid_request, writing nothing',
    async (_name, jkt) => {
      const before = await as.counts();
      const pending = await as.prisma.pendingAuthorization.count();
      const request = authorizationRequest(as, client, { dpop_jkt: jkt });
      const response = await new HeadlessUserAgent().get(request.url);
      expect(response.status).toBe(303);
      const location = new URL(response.location!);
      expect(location.origin + location.pathname).toBe('https://app.example.com/cb');
      expect(location.searchParams.get('error')).toBe('invalid_request');
      expect(location.searchParams.get('error_description')).toMatch(/dpop_jkt/);
      expect(location.searchParams.get('state')).toBe(request.state);
      expect(location.searchParams.get('code')).toBeNull();
      expect(await as.counts()).toEqual(before);
      expect(await as.prisma.pendingAuthorization.count()).toBe(pending);
    },
  );
});

describe('dpop_jkt without a proof-of-possession extension', () => {
  let as: AuthorizationServerFixture;
  beforeAll(async () => {
    as = await startAuthorizationServer();
  });
  afterAll(async () => {
    await as?.close();
  });

  it('is an unknown parameter, ignored: the code is not bound and the tokens are Bearer tokens', async () => {
    const user = await as.createUser();
    const client = await as.createClient();
    const key = await dpopKey();
    const issued = await codeFor(as, client, user, { dpop_jkt: key.jkt });
    const response = await tokenRequestWithProof(
      as,
      codeForm(client, issued),
      await proof(key, tokenEndpoint(as)),
    );
    expect(response.status).toBe(200);
    expect(response.body['token_type']).toBe('Bearer');
    expect(confirmationOf(response.body['access_token'])).toBeUndefined();
  });
});
