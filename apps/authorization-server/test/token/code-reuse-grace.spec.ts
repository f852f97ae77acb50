// AUTHORIZATION_CODE_REUSE_GRACE: a code redemption whose answer was lost (the instance that redeemed it died after
// the commit, and the balancer or the client sent the request again) is refused as a replay by default (RFC 6749
// 4.1.2: a second redemption fails and revokes what the first issued). Within the operator's grace window the same
// client retrying the very redemption (redirect URI, code verifier, resource, key) while the grant stands and its
// refresh token is unused gets the response the first redemption got; anything else is still a replay.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { HeadlessUserAgent } from '@portcullis/testing';
import {
  authorizationRequest,
  authorize,
  redeem,
  RESOURCE,
  startAuthorizationServer,
  tokenRequest,
  type AuthorizationRequest,
  type AuthorizationServerFixture,
  type TestClient,
} from '../support/authorization-server.fixture.js';

const hashed = (value: string) => createHash('sha256').update(value, 'utf8').digest('base64url');

type Tokens = { access_token: string; refresh_token: string };

function helpers(as: () => AuthorizationServerFixture) {
  return {
    async codeFor(client: TestClient): Promise<{ callback: URL; request: AuthorizationRequest }> {
      const user = await as().createUser();
      const request = authorizationRequest(as(), client);
      return { callback: await authorize(new HeadlessUserAgent(), request, user, client), request };
    },
    async grantOf(callback: URL) {
      const code = await as().prisma.authorizationCode.findUniqueOrThrow({
        where: { codeHash: hashed(callback.searchParams.get('code')!) },
      });
      const grant = await as().prisma.authorizationGrant.findUniqueOrThrow({ where: { id: code.grantId } });
      return { code, grant };
    },
  };
}

describe('a code presented again without a grace window (the default)', () => {
  let as: AuthorizationServerFixture;
  const { codeFor, grantOf } = helpers(() => as);
  beforeAll(async () => {
    as = await startAuthorizationServer();
  });
  afterAll(async () => {
    await as?.close();
  });

  it('is a replay: refused, its grant revoked, and nothing was kept to give again', async () => {
    const client = await as.createClient();
    const { callback, request } = await codeFor(client);
    expect((await redeem(as, client, callback, request)).status).toBe(200);
    expect((await grantOf(callback)).code.replay).toBeNull();
    const again = await redeem(as, client, callback, request);
    expect({ status: again.status, error: again.body.error }).toEqual({
      status: 400,
      error: 'invalid_grant',
    });
    expect((await grantOf(callback)).grant.revokedAt).not.toBeNull();
  });
});

describe('a code presented again within AUTHORIZATION_CODE_REUSE_GRACE=30', () => {
  let as: AuthorizationServerFixture;
  const { codeFor, grantOf } = helpers(() => as);
  beforeAll(async () => {
    as = await startAuthorizationServer({ env: { AUTHORIZATION_CODE_REUSE_GRACE: '30' } });
  });
  afterAll(async () => {
    await as?.close();
  });

  it('gets the first response again, issuing nothing new, with the response kept sealed', async () => {
    const client = await as.createClient();
    const { callback, request } = await codeFor(client);
    const first = await redeem(as, client, callback, request);
    expect(first.status).toBe(200);
    const before = await as.counts();
    const again = await redeem(as, client, callback, request, { resource: RESOURCE });
    expect({ status: again.status, body: again.body }).toEqual({ status: 200, body: first.body });
    expect(await as.counts()).toEqual(before);
    const { code, grant } = await grantOf(callback);
    expect(grant.revokedAt).toBeNull();
    const tokens = first.body as Tokens;
    expect(code.replay).not.toBeNull();
    expect(code.replay).not.toContain(tokens.access_token);
    expect(code.replay).not.toContain(tokens.refresh_token);
    // The tokens work: the refresh token rotates.
    const refreshed = await tokenRequest(as, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: client.clientId,
    });
    expect(refreshed.status).toBe(200);
  });

  it('gives all of 10 concurrent redemptions one and the same response, from one redemption', async () => {
    const client = await as.createClient();
    const { callback, request } = await codeFor(client);
    const before = await as.counts();
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => redeem(as, client, callback, request)),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array.from({ length: 10 }, () => 200));
    expect(new Set(answers.map((answer) => JSON.stringify(answer.body))).size).toBe(1);
    const after = await as.counts();
    expect({ access: after.accessTokens, refresh: after.refreshTokens }).toEqual({
      access: before.accessTokens + 1,
      refresh: before.refreshTokens + 1,
    });
    expect((await grantOf(callback)).grant.revokedAt).toBeNull();
  });

  it.each([
    ['another code verifier', { code_verifier: 'x'.repeat(43) }],
    ['another redirect URI', { redirect_uri: 'http://127.0.0.1:9/elsewhere' }],
    ['another resource', { resource: 'https://elsewhere.example/mcp' }],
  ])('is a replay with %s: refused and its grant revoked', async (_, overrides) => {
    const client = await as.createClient();
    const { callback, request } = await codeFor(client);
    expect((await redeem(as, client, callback, request)).status).toBe(200);
    const before = await as.counts();
    const again = await redeem(as, client, callback, request, overrides);
    expect({ status: again.status, error: again.body.error }).toEqual({
      status: 400,
      error: 'invalid_grant',
    });
    // Nothing issued; only the revocation is written.
    expect(await as.counts()).toEqual(before);
    expect((await grantOf(callback)).grant.revokedAt).not.toBeNull();
  });

  it('is a replay once the refresh token it issued was used', async () => {
    const client = await as.createClient();
    const { callback, request } = await codeFor(client);
    const first = await redeem(as, client, callback, request);
    const refreshed = await tokenRequest(as, {
      grant_type: 'refresh_token',
      refresh_token: (first.body as Tokens).refresh_token,
      client_id: client.clientId,
    });
    expect(refreshed.status).toBe(200);
    const again = await redeem(as, client, callback, request);
    expect({ status: again.status, error: again.body.error }).toEqual({
      status: 400,
      error: 'invalid_grant',
    });
    expect((await grantOf(callback)).grant.revokedAt).not.toBeNull();
  });

  it('is refused to another client, without revoking the grant', async () => {
    const client = await as.createClient();
    const other = await as.createClient();
    const { callback, request } = await codeFor(client);
    expect((await redeem(as, client, callback, request)).status).toBe(200);
    const before = await as.counts();
    const stolen = await redeem(as, other, callback, request, { redirect_uri: client.redirectUri });
    expect({ status: stolen.status, error: stolen.body.error }).toEqual({
      status: 400,
      error: 'invalid_grant',
    });
    expect(await as.counts()).toEqual(before);
    expect((await grantOf(callback)).grant.revokedAt).toBeNull();
  });
});

describe('a code presented again after AUTHORIZATION_CODE_REUSE_GRACE=1', () => {
  let as: AuthorizationServerFixture;
  const { codeFor, grantOf } = helpers(() => as);
  beforeAll(async () => {
    as = await startAuthorizationServer({ env: { AUTHORIZATION_CODE_REUSE_GRACE: '1' } });
  });
  afterAll(async () => {
    await as?.close();
  });

  it('is a replay: refused and its grant revoked', async () => {
    const client = await as.createClient();
    const { callback, request } = await codeFor(client);
    expect((await redeem(as, client, callback, request)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    const again = await redeem(as, client, callback, request);
    expect({ status: again.status, error: again.body.error }).toEqual({
      status: 400,
      error: 'invalid_grant',
    });
    expect((await grantOf(callback)).grant.revokedAt).not.toBeNull();
  });
});
