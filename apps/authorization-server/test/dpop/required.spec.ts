import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { runAdmin } from '../../src/admin/admin.js';
import { register, nativeClient } from '../registration/registration.helpers.js';
import {
  startAuthorizationServer,
  type AuthorizationServerFixture,
  type TestClient,
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

/** The refused request left the code redeemable: the same request with a proof gets bound tokens. */
async function expectRequiredThenRedeemable(
  as: AuthorizationServerFixture,
  client: TestClient,
  user: { username: string; password: string },
): Promise<void> {
  const issued = await codeFor(as, client, user);
  const refused = await expectRefusedWithoutTrace(
    as,
    () => tokenRequestWithProof(as, codeForm(client, issued), undefined),
    'invalid_dpop_proof',
  );
  expect(refused.body['error_description']).toBe('a DPoP proof is required');
  const key = await dpopKey();
  const good = await tokenRequestWithProof(as, codeForm(client, issued), await proof(key, tokenEndpoint(as)));
  expect(good.status).toBe(200);
  expect(good.body['token_type']).toBe('DPoP');
}

describe('a client registered with dpop_bound_access_tokens: true (RFC 9449 5.2)', () => {
  let as: AuthorizationServerFixture;
  let user: { username: string; password: string };
  beforeAll(async () => {
    as = await startAuthorizationServer({ env: { EXTENSIONS: 'dpop' } });
    user = await as.createUser();
  });
  afterAll(async () => {
    await as?.close();
  });

  it('is refused without a proof when it registered dynamically, and its registration keeps the member', async () => {
    const registered = await register(as, nativeClient({ dpop_bound_access_tokens: true }));
    expect(registered.status).toBe(201);
    expect(registered.body['dpop_bound_access_tokens']).toBe(true);
    const client = {
      clientId: registered.body['client_id'] as string,
      redirectUri: 'http://127.0.0.1/callback',
    };
    await expectRequiredThenRedeemable(as, client, user);
  });

  it('is refused without a proof when the operator registered it with --dpop-bound-access-tokens', async () => {
    const out: string[] = [];
    const code = await runAdmin(
      [
        'clients',
        'create',
        '--name',
        'DPoP CLI',
        '--redirect-uri',
        'http://127.0.0.1/callback',
        '--dpop-bound-access-tokens',
        '--json',
      ],
      { EXTENSIONS: 'dpop' },
      { out: (text) => out.push(text), err: () => undefined },
      { database: as.app.database.database },
    );
    expect(code).toBe(0);
    const created = JSON.parse(out.join('\n')) as Record<string, unknown>;
    expect(created['dpop_bound_access_tokens']).toBe(true);
    await expectRequiredThenRedeemable(
      as,
      { clientId: created['client_id'] as string, redirectUri: 'http://127.0.0.1/callback' },
      user,
    );
  });

  it('refuses a registration whose dpop_bound_access_tokens is not a boolean, storing nothing', async () => {
    const before = await as.prisma.client.count();
    const refused = await register(as, nativeClient({ dpop_bound_access_tokens: 'true' }));
    expect(refused.status).toBe(400);
    expect(refused.body['error']).toBe('invalid_client_metadata');
    expect(await as.prisma.client.count()).toBe(before);
  });

  it('leaves other clients free to send no proof', async () => {
    const client = await as.createClient();
    const issued = await codeFor(as, client, user);
    const response = await tokenRequestWithProof(as, codeForm(client, issued), undefined);
    expect(response.status).toBe(200);
    expect(response.body['token_type']).toBe('Bearer');
  });
});

describe('DPOP_REQUIRED=true', () => {
  let as: AuthorizationServerFixture;
  let user: { username: string; password: string };
  beforeAll(async () => {
    as = await startAuthorizationServer({ env: { EXTENSIONS: 'dpop', DPOP_REQUIRED: 'true' } });
    user = await as.createUser();
  });
  afterAll(async () => {
    await as?.close();
  });

  it('refuses every client without a proof, a public and a confidential one', async () => {
    await expectRequiredThenRedeemable(as, await as.createClient(), user);
    await expectRequiredThenRedeemable(
      as,
      await as.createClient({ confidential: 'client_secret_post' }),
      user,
    );
  });

  it('refuses a refresh without a proof too, using nothing up', async () => {
    const client = await as.createClient({ confidential: 'client_secret_post' });
    const issued = await codeFor(as, client, user);
    const key = await dpopKey();
    const tokens = await tokenRequestWithProof(
      as,
      codeForm(client, issued),
      await proof(key, tokenEndpoint(as)),
    );
    expect(tokens.status).toBe(200);
    const form = {
      grant_type: 'refresh_token',
      refresh_token: tokens.body['refresh_token'] as string,
      client_id: client.clientId,
      client_secret: client.clientSecret,
    };
    await expectRefusedWithoutTrace(
      as,
      () => tokenRequestWithProof(as, form, undefined),
      'invalid_dpop_proof',
    );
    const retried = await tokenRequestWithProof(as, form, await proof(key, tokenEndpoint(as)));
    expect(retried.status).toBe(200);
  });
});
