import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { basic, postForm } from '../introspection/introspection.helpers.js';
import {
  RESOURCE,
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
  tokenEndpoint,
  tokenRequestWithProof,
  type DpopKey,
} from './dpop.helpers.js';

describe('DPoP-bound tokens (RFC 9449, EXTENSIONS=dpop)', () => {
  let as: AuthorizationServerFixture;
  let user: { username: string; password: string };
  let resourceServer: TestClient;
  beforeAll(async () => {
    as = await startAuthorizationServer({ env: { EXTENSIONS: 'dpop' } });
    user = await as.createUser();
    resourceServer = await as.createClient({ confidential: 'client_secret_basic', resourceServer: RESOURCE });
  });
  afterAll(async () => {
    await as?.close();
  });

  /** The whole flow on the real pages, redeemed with a proof of `key`. */
  async function boundTokens(client: TestClient, key: DpopKey) {
    const issued = await codeFor(as, client, user);
    const response = await tokenRequestWithProof(
      as,
      codeForm(client, issued),
      await proof(key, tokenEndpoint(as)),
    );
    expect(response.status).toBe(200);
    return response.body as { access_token: string; refresh_token: string; token_type: string };
  }

  const introspect = (token: string) => postForm(as, 'introspect', { token }, basic(resourceServer));

  it('publishes dpop_signing_alg_values_supported in both metadata documents (RFC 9449 5.1)', async () => {
    for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
      const metadata = (await (await fetch(`${as.app.url}${path}`)).json()) as Record<string, unknown>;
      expect(metadata['dpop_signing_alg_values_supported']).toEqual(expect.arrayContaining(['ES256']));
      expect(metadata['dpop_signing_alg_values_supported']).not.toContain('none');
      expect(metadata['dpop_signing_alg_values_supported']).not.toContain('HS256');
    }
  });

  it('binds the access token of a code redeemed with a proof: token_type DPoP, cnf.jkt the key thumbprint', async () => {
    const client = await as.createClient();
    const key = await dpopKey();
    const tokens = await boundTokens(client, key);
    expect(tokens.token_type).toBe('DPoP');
    expect(confirmationOf(tokens.access_token)).toEqual({ jkt: key.jkt });
  });

  it('describes a bound access token in introspection with its cnf and token_type DPoP (RFC 9449 6.2)', async () => {
    const client = await as.createClient();
    const key = await dpopKey();
    const tokens = await boundTokens(client, key);
    const answer = await introspect(tokens.access_token);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ active: true, cnf: { jkt: key.jkt }, token_type: 'DPoP' });
  });

  it('issues Bearer tokens without cnf to a request without a proof', async () => {
    const client = await as.createClient();
    const issued = await codeFor(as, client, user);
    const response = await tokenRequestWithProof(as, codeForm(client, issued), undefined);
    expect(response.status).toBe(200);
    expect(response.body['token_type']).toBe('Bearer');
    expect(confirmationOf(response.body['access_token'])).toBeUndefined();
    const answer = await introspect(response.body['access_token'] as string);
    expect(answer.body['token_type']).toBe('Bearer');
    expect(answer.body['cnf']).toBeUndefined();
  });

  it("refreshes a public client's bound refresh token with the same key: the new tokens stay bound to it", async () => {
    const client = await as.createClient();
    const key = await dpopKey();
    const first = await boundTokens(client, key);
    const second = await tokenRequestWithProof(
      as,
      refreshForm(client, first.refresh_token),
      await proof(key, tokenEndpoint(as)),
    );
    expect(second.status).toBe(200);
    expect(second.body['token_type']).toBe('DPoP');
    expect(confirmationOf(second.body['access_token'])).toEqual({ jkt: key.jkt });
    const grants = await as.prisma.authorizationGrant.findMany({ where: { clientId: client.clientId } });
    const stored = await as.prisma.refreshToken.findMany({
      where: { grantId: { in: grants.map((g) => g.id) } },
    });
    expect(stored.map((row) => row.confirmation)).toEqual([{ jkt: key.jkt }, { jkt: key.jkt }]);

    // The successor is bound too: another key cannot use it, the same key can.
    const other = await dpopKey();
    await expectRefusedWithoutTrace(
      as,
      async () =>
        tokenRequestWithProof(
          as,
          refreshForm(client, second.body['refresh_token'] as string),
          await proof(other, tokenEndpoint(as)),
        ),
      'invalid_grant',
    );
    const third = await tokenRequestWithProof(
      as,
      refreshForm(client, second.body['refresh_token'] as string),
      await proof(key, tokenEndpoint(as)),
    );
    expect(third.status).toBe(200);
    expect(confirmationOf(third.body['access_token'])).toEqual({ jkt: key.jkt });
  });

  it('refuses a bound refresh token without a proof (invalid_dpop_proof) and with a proof of another key (invalid_grant), using nothing up', async () => {
    const client = await as.createClient();
    const key = await dpopKey();
    const tokens = await boundTokens(client, key);
    await expectRefusedWithoutTrace(
      as,
      () => tokenRequestWithProof(as, refreshForm(client, tokens.refresh_token), undefined),
      'invalid_dpop_proof',
    );
    const other = await dpopKey();
    await expectRefusedWithoutTrace(
      as,
      async () =>
        tokenRequestWithProof(
          as,
          refreshForm(client, tokens.refresh_token),
          await proof(other, tokenEndpoint(as)),
        ),
      'invalid_grant',
    );
    // The holder of the key still refreshes: nothing was consumed, and no reuse was counted.
    const retried = await tokenRequestWithProof(
      as,
      refreshForm(client, tokens.refresh_token),
      await proof(key, tokenEndpoint(as)),
    );
    expect(retried.status).toBe(200);
  });

  it('does not revoke the family when someone without the key presents a bound refresh token already used', async () => {
    const client = await as.createClient();
    const key = await dpopKey();
    const first = await boundTokens(client, key);
    const rotated = await tokenRequestWithProof(
      as,
      refreshForm(client, first.refresh_token),
      await proof(key, tokenEndpoint(as)),
    );
    expect(rotated.status).toBe(200);
    const thief = await dpopKey();
    await expectRefusedWithoutTrace(
      as,
      async () =>
        tokenRequestWithProof(
          as,
          refreshForm(client, first.refresh_token),
          await proof(thief, tokenEndpoint(as)),
        ),
      'invalid_grant',
    );
    const next = await tokenRequestWithProof(
      as,
      refreshForm(client, rotated.body['refresh_token'] as string),
      await proof(key, tokenEndpoint(as)),
    );
    expect(next.status).toBe(200);
  });

  it("does not bind a confidential client's refresh token, but binds each access token to its request's proof", async () => {
    const client = await as.createClient({ confidential: 'client_secret_post' });
    const key = await dpopKey();
    const tokens = await boundTokens(client, key);
    expect(tokens.token_type).toBe('DPoP');
    const grants = await as.prisma.authorizationGrant.findMany({ where: { clientId: client.clientId } });
    const stored = await as.prisma.refreshToken.findMany({
      where: { grantId: { in: grants.map((g) => g.id) } },
    });
    expect(stored.map((row) => row.confirmation)).toEqual([null]);

    const plain = await tokenRequestWithProof(as, refreshForm(client, tokens.refresh_token), undefined);
    expect(plain.status).toBe(200);
    expect(plain.body['token_type']).toBe('Bearer');
    const other = await dpopKey();
    const bound = await tokenRequestWithProof(
      as,
      refreshForm(client, plain.body['refresh_token'] as string),
      await proof(other, tokenEndpoint(as)),
    );
    expect(bound.status).toBe(200);
    expect(confirmationOf(bound.body['access_token'])).toEqual({ jkt: other.jkt });
  });

  it("binds the successor of a public client's unbound refresh token to the key of the refresh request's proof", async () => {
    const client = await as.createClient();
    const issued = await codeFor(as, client, user);
    const unbound = await tokenRequestWithProof(as, codeForm(client, issued), undefined);
    expect(unbound.status).toBe(200);
    const key = await dpopKey();
    const upgraded = await tokenRequestWithProof(
      as,
      refreshForm(client, unbound.body['refresh_token'] as string),
      await proof(key, tokenEndpoint(as)),
    );
    expect(upgraded.status).toBe(200);
    await expectRefusedWithoutTrace(
      as,
      () =>
        tokenRequestWithProof(as, refreshForm(client, upgraded.body['refresh_token'] as string), undefined),
      'invalid_dpop_proof',
    );
  });

  it('refuses a bound access token at the userinfo endpoint, where it would be a bearer token', async () => {
    const client = await as.createClient();
    const key = await dpopKey();
    const issued = await codeFor(as, client, user, { scope: 'openid notes:read' });
    const response = await tokenRequestWithProof(
      as,
      codeForm(client, issued),
      await proof(key, tokenEndpoint(as)),
    );
    expect(response.status).toBe(200);
    const userinfo = await fetch(`${as.app.url}/userinfo`, {
      headers: { authorization: `Bearer ${String(response.body['access_token'])}` },
    });
    expect(userinfo.status).toBe(401);
    expect(((await userinfo.json()) as Record<string, unknown>)['error']).toBe('invalid_token');
  });
});
