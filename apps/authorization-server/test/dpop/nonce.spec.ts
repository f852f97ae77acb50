import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startDatabase, type TestDatabase } from '@portcullis/testing';
import {
  startAuthorizationServer,
  type AuthorizationServerFixture,
} from '../support/authorization-server.fixture.js';
import {
  codeFor,
  codeForm,
  dpopKey,
  expectRefusedWithoutTrace,
  proof,
  tokenEndpoint,
  tokenRequestWithProof,
} from './dpop.helpers.js';

/** RFC 9449 8: with DPOP_NONCE=on the token endpoint wants its nonce in every proof. */
describe('DPOP_NONCE=on', () => {
  const secret = randomBytes(32).toString('base64url');
  let database: TestDatabase;
  let as: AuthorizationServerFixture;
  let user: { username: string; password: string };
  beforeAll(async () => {
    database = await startDatabase();
    as = await startAuthorizationServer({
      database,
      env: { EXTENSIONS: 'dpop', DPOP_NONCE: 'on', DPOP_NONCE_SECRET: secret },
    });
    user = await as.createUser();
  });
  afterAll(async () => {
    await as?.close();
    await database?.stop();
  });

  it('answers a proof without the nonce with 400 use_dpop_nonce and a DPoP-Nonce; the retry with it succeeds', async () => {
    const client = await as.createClient();
    const key = await dpopKey();
    const issued = await codeFor(as, client, user);
    const first = await expectRefusedWithoutTrace(
      as,
      async () => tokenRequestWithProof(as, codeForm(client, issued), await proof(key, tokenEndpoint(as))),
      'use_dpop_nonce',
    );
    const nonce = first.headers['dpop-nonce'];
    expect(typeof nonce).toBe('string');
    expect(first.headers['cache-control']).toBe('no-store');
    const retried = await tokenRequestWithProof(
      as,
      codeForm(client, issued),
      await proof(key, tokenEndpoint(as), { nonce: nonce as string }),
    );
    expect(retried.status).toBe(200);
    expect(retried.body['token_type']).toBe('DPoP');
  });

  it('refuses a nonce it never issued with a fresh one, using nothing up', async () => {
    const client = await as.createClient();
    const key = await dpopKey();
    const issued = await codeFor(as, client, user);
    const refused = await expectRefusedWithoutTrace(
      as,
      async () =>
        tokenRequestWithProof(
          as,
          codeForm(client, issued),
          await proof(key, tokenEndpoint(as), { nonce: 'made-up' }),
        ),
      'use_dpop_nonce',
    );
    expect(refused.headers['dpop-nonce']).toEqual(expect.any(String));
  });

  it("accepts another instance's nonce when both share DPOP_NONCE_SECRET", async () => {
    const second = await startAuthorizationServer({
      database,
      env: { EXTENSIONS: 'dpop', DPOP_NONCE: 'on', DPOP_NONCE_SECRET: secret },
    });
    try {
      // One database: the client and the user are the same at both instances.
      const client = await as.createClient();
      const key = await dpopKey();
      const issued = await codeFor(second, client, user);
      const asked = await tokenRequestWithProof(
        as,
        codeForm(client, issued),
        await proof(key, tokenEndpoint(as)),
      );
      expect(asked.body['error']).toBe('use_dpop_nonce');
      const response = await tokenRequestWithProof(
        second,
        codeForm(client, issued),
        await proof(key, tokenEndpoint(second), { nonce: asked.headers['dpop-nonce'] as string }),
      );
      expect(response.status).toBe(200);
    } finally {
      await second.close();
    }
  });
});
