import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { HeadlessUserAgent } from '@portcullis/testing';
import {
  authorizationRequest,
  authorize,
  redeem,
  startAuthorizationServer,
  tokenRequest,
  type AuthorizationRequest,
  type AuthorizationServerFixture,
  type TestClient,
} from '../support/authorization-server.fixture.js';

describe('the token endpoint with authorization codes', () => {
  let as: AuthorizationServerFixture;
  let user: { username: string; password: string };
  beforeAll(async () => {
    as = await startAuthorizationServer();
    user = await as.createUser();
  });
  afterAll(async () => {
    await as?.close();
  });

  async function codeFor(
    client: TestClient,
    overrides = {},
  ): Promise<{ callback: URL; request: AuthorizationRequest }> {
    const request = authorizationRequest(as, client, overrides);
    return { callback: await authorize(new HeadlessUserAgent(), request, user, client), request };
  }

  async function expectNothingIssued(run: () => Promise<void>): Promise<void> {
    const before = await as.counts();
    await run();
    const after = await as.counts();
    expect(after.accessTokens).toBe(before.accessTokens);
    expect(after.refreshTokens).toBe(before.refreshTokens);
  }

  it('revokes every token of the first redemption when a code is replayed', async () => {
    const client = await as.createClient();
    const { callback, request } = await codeFor(client);
    const first = await redeem(as, client, callback, request);
    expect(first.status).toBe(200);

    const second = await redeem(as, client, callback, request);
    expect(second.status).toBe(400);
    expect(second.body).toEqual({
      error: 'invalid_grant',
      error_description: 'authorization code is invalid',
    });
    expect(second.headers.get('cache-control')).toBe('no-store');

    const refreshed = await tokenRequest(as, {
      grant_type: 'refresh_token',
      refresh_token: first.body.refresh_token as string,
      client_id: client.clientId,
    });
    expect(refreshed.status).toBe(400);
    expect(refreshed.body.error).toBe('invalid_grant');
    const revoked = await as.prisma.accessToken.findMany({ where: { clientId: client.clientId } });
    expect(revoked).toHaveLength(1);
    expect(revoked[0]!.revokedAt).not.toBeNull();
  });

  it('does not let another client revoke a grant by presenting its used code', async () => {
    const client = await as.createClient();
    const other = await as.createClient();
    const { callback, request } = await codeFor(client);
    expect((await redeem(as, client, callback, request)).status).toBe(200);
    const replay = await redeem(as, other, callback, request, { redirect_uri: client.redirectUri });
    expect(replay.body.error).toBe('invalid_grant');
    const grants = await as.prisma.authorizationGrant.findMany({ where: { clientId: client.clientId } });
    expect(grants.map((grant) => grant.revokedAt)).toEqual([null]);
  });

  it('lets exactly one of 20 parallel redemptions of one code succeed', async () => {
    const client = await as.createClient();
    const { callback, request } = await codeFor(client);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => redeem(as, client, callback, request)),
    );
    expect(results.filter((result) => result.status === 200)).toHaveLength(1);
    // One line per refusal, so that a failure shows which refusal was not invalid_grant.
    const refusals = results
      .filter((result) => result.status !== 200)
      .map(
        (result) => `${result.status} ${String(result.body.error)}: ${String(result.body.error_description)}`,
      );
    expect(refusals).toEqual(
      Array.from({ length: 19 }, () => '400 invalid_grant: authorization code is invalid'),
    );
  });

  describe('rejects with invalid_grant, leaving the code usable', () => {
    it.each([
      [
        'a wrong code_verifier',
        { code_verifier: 'x'.repeat(43) },
        'code_verifier does not match the code_challenge',
      ],
      [
        'another redirect_uri',
        { redirect_uri: 'http://127.0.0.1/other' },
        'redirect_uri does not match the authorization request',
      ],
      [
        'no redirect_uri',
        { redirect_uri: undefined },
        'redirect_uri does not match the authorization request',
      ],
    ])('%s', async (_name, extra, description) => {
      const client = await as.createClient();
      const { callback, request } = await codeFor(client);
      await expectNothingIssued(async () => {
        const response = await redeem(as, client, callback, request, extra);
        expect(response.status).toBe(400);
        expect(response.body).toEqual({ error: 'invalid_grant', error_description: description });
      });
      expect((await redeem(as, client, callback, request)).status).toBe(200);
    });

    it('another client', async () => {
      const client = await as.createClient();
      const other = await as.createClient();
      const { callback, request } = await codeFor(client);
      await expectNothingIssued(async () => {
        const response = await redeem(as, other, callback, request, { redirect_uri: client.redirectUri });
        expect(response.body.error).toBe('invalid_grant');
      });
    });
  });

  it('rejects a resource switch at the token endpoint with invalid_target, leaving the code usable', async () => {
    const client = await as.createClient();
    const { callback, request } = await codeFor(client);
    await expectNothingIssued(async () => {
      const response = await redeem(as, client, callback, request, { resource: 'https://other.example/mcp' });
      expect(response.status).toBe(400);
      expect(response.body.error).toBe('invalid_target');
    });
    const codes = await as.prisma.authorizationCode.findMany({ where: { clientId: client.clientId } });
    expect(codes.map((code) => code.consumedAt)).toEqual([null]);
    const corrected = await redeem(as, client, callback, request);
    expect(corrected.status).toBe(200);
    const grants = await as.prisma.authorizationGrant.findMany({ where: { clientId: client.clientId } });
    expect(grants.map((grant) => grant.revokedAt)).toEqual([null]);
  });

  it('redeems a code sent to an ephemeral port of a registered http://localhost redirect URI', async () => {
    const registered = await as.createClient({ redirectUris: ['http://localhost/callback'] });
    const client = { ...registered, redirectUri: 'http://localhost:53076/callback' };
    const { callback, request } = await codeFor(client);
    expect(callback.origin).toBe('http://localhost:53076');
    expect((await redeem(as, client, callback, request)).status).toBe(200);
  });

  describe('redirect_uri, required at the token endpoint only when the authorization request included it', () => {
    it('may be left out when the authorization request left it out (one registered URI)', async () => {
      const client = await as.createClient();
      const { callback, request } = await codeFor(client, { redirect_uri: undefined });
      const response = await redeem(as, client, callback, request, { redirect_uri: undefined });
      expect(response.status).toBe(200);
    });

    it('may still be sent then, as the registered URI', async () => {
      const client = await as.createClient();
      const { callback, request } = await codeFor(client, { redirect_uri: undefined });
      expect((await redeem(as, client, callback, request)).status).toBe(200);
    });

    it('refuses another URI then, leaving the code usable', async () => {
      const client = await as.createClient();
      const { callback, request } = await codeFor(client, { redirect_uri: undefined });
      await expectNothingIssued(async () => {
        const response = await redeem(as, client, callback, request, {
          redirect_uri: 'http://127.0.0.1/other',
        });
        expect(response.body).toEqual({
          error: 'invalid_grant',
          error_description: 'redirect_uri does not match the authorization request',
        });
      });
      expect((await redeem(as, client, callback, request, { redirect_uri: undefined })).status).toBe(200);
    });
  });

  it('rejects a code_verifier that is not a verifier', async () => {
    const client = await as.createClient();
    const { callback, request } = await codeFor(client);
    const response = await redeem(as, client, callback, request, { code_verifier: 'short' });
    expect(response.body).toEqual({
      error: 'invalid_request',
      error_description: 'code_verifier is malformed',
    });
  });

  it('refuses a JSON body', async () => {
    await expectNothingIssued(async () => {
      const response = await fetch(`${as.app.url}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ grant_type: 'authorization_code', code: 'x' }),
      });
      expect(response.status).toBe(400);
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(await response.json()).toEqual({
        error: 'invalid_request',
        error_description: 'the token request must be application/x-www-form-urlencoded',
      });
    });
  });

  it('refuses a body over 64 KiB with 413 in the OAuth error format', async () => {
    const response = await fetch(`${as.app.url}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `grant_type=authorization_code&code=${'a'.repeat(70_000)}`,
    });
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({
      error: 'invalid_request',
      error_description: 'the request body is too large',
    });
  });

  it('refuses a repeated parameter', async () => {
    const response = await fetch(`${as.app.url}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=authorization_code&code=a&code=b&client_id=x',
    });
    expect(await response.json()).toEqual({
      error: 'invalid_request',
      error_description: 'parameter sent more than once: code',
    });
  });

  it('answers an unknown grant type with unsupported_grant_type', async () => {
    const client = await as.createClient();
    const response = await tokenRequest(as, {
      grant_type: 'password',
      client_id: client.clientId,
      username: 'a',
      password: 'b',
    });
    expect(response.body.error).toBe('unsupported_grant_type');
  });

  describe('a confidential client', () => {
    it('authenticates with client_secret_basic and gets tokens', async () => {
      const client = await as.createClient({ confidential: 'client_secret_basic' });
      const { callback, request } = await codeFor(client);
      const basic = Buffer.from(
        `${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret!)}`,
      ).toString('base64');
      const response = await redeem(as, client, callback, request, { client_id: undefined }).catch(
        () => undefined,
      );
      expect(response?.status).toBe(401);
      const ok = await tokenRequest(
        as,
        {
          grant_type: 'authorization_code',
          code: callback.searchParams.get('code')!,
          redirect_uri: client.redirectUri,
          code_verifier: request.verifier,
        },
        { authorization: `Basic ${basic}` },
      );
      expect(ok.status).toBe(200);
      expect(typeof ok.body.refresh_token).toBe('string');
    });

    it('authenticates with client_secret_post', async () => {
      const client = await as.createClient({ confidential: 'client_secret_post' });
      const { callback, request } = await codeFor(client);
      const response = await redeem(as, client, callback, request, { client_secret: client.clientSecret });
      expect(response.status).toBe(200);
    });

    it('gets 401 invalid_client with WWW-Authenticate: Basic for a wrong secret', async () => {
      const client = await as.createClient({ confidential: 'client_secret_post' });
      const { callback, request } = await codeFor(client);
      await expectNothingIssued(async () => {
        const response = await redeem(as, client, callback, request, { client_secret: 'wrong' });
        expect(response.status).toBe(401);
        expect(response.body.error).toBe('invalid_client');
        expect(response.headers.get('www-authenticate')).toMatch(/^Basic/);
      });
    });

    it('may not use two authentication methods in one request', async () => {
      const client = await as.createClient({ confidential: 'client_secret_basic' });
      const { callback, request } = await codeFor(client);
      const basic = Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64');
      const response = await tokenRequest(
        as,
        {
          grant_type: 'authorization_code',
          code: callback.searchParams.get('code')!,
          redirect_uri: client.redirectUri,
          code_verifier: request.verifier,
          client_secret: client.clientSecret,
        },
        { authorization: `Basic ${basic}` },
      );
      expect(response.status).toBe(400);
      expect(response.body.error).toBe('invalid_request');
    });

    it('may not pose as a public client by leaving out its secret', async () => {
      const client = await as.createClient({ confidential: 'client_secret_post' });
      const { callback, request } = await codeFor(client);
      const response = await redeem(as, client, callback, request);
      expect(response.status).toBe(401);
      expect(response.body.error).toBe('invalid_client');
    });
  });
});
