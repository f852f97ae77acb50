import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { decodeJwt, generateKeyPair, SignJWT } from 'jose';
import {
  RESOURCE,
  startAuthorizationServer,
  tokenRequest,
  type AuthorizationServerFixture,
  type TestClient,
} from '../support/authorization-server.fixture.js';
import { basic, issueTokens, postForm, type FormResult } from '../introspection/introspection.helpers.js';

describe('revocation (RFC 7009)', () => {
  let as: AuthorizationServerFixture;
  let client: TestClient;
  let resourceServer: TestClient;
  let user: { id: string; username: string; password: string };
  beforeAll(async () => {
    as = await startAuthorizationServer();
    client = await as.createClient();
    resourceServer = await as.createClient({ confidential: 'client_secret_basic', resourceServer: RESOURCE });
    user = await as.createUser();
  });
  afterAll(async () => {
    await as?.close();
  });

  /** A public client revokes by naming itself (RFC 7009 2.1, 5). */
  const revoke = (token: string, by: TestClient = client, extra: Record<string, string> = {}) =>
    postForm(as, 'revoke', { token, client_id: by.clientId, ...extra });
  const isActive = async (token: string) =>
    (await postForm(as, 'introspect', { token }, basic(resourceServer))).body.active === true;
  const refresh = (token: string, by: TestClient = client) =>
    tokenRequest(as, { grant_type: 'refresh_token', refresh_token: token, client_id: by.clientId });

  /** RFC 7009 2.2: 200 and nothing to read, whatever happened. */
  function expectEmpty200(response: FormResult): void {
    expect(response.status).toBe(200);
    expect(response.text).toBe('');
    expect(response.headers.get('cache-control')).toBe('no-store');
  }

  it('is advertised with its authentication methods', async () => {
    const metadata = (await (
      await fetch(`${as.app.url}/.well-known/oauth-authorization-server`)
    ).json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({
      revocation_endpoint: `${as.issuer}/revoke`,
      revocation_endpoint_auth_methods_supported: [
        'none',
        'client_secret_basic',
        'client_secret_post',
        'private_key_jwt',
      ],
    });
  });

  it('revokes an access token by its jti, and nothing else of the grant', async () => {
    const tokens = await issueTokens(as, client, user);
    expect(await isActive(tokens.access_token)).toBe(true);
    expectEmpty200(await revoke(tokens.access_token, client, { token_type_hint: 'access_token' }));
    expect(await isActive(tokens.access_token)).toBe(false);
    const row = await as.prisma.accessToken.findUniqueOrThrow({
      where: { jti: decodeJwt(tokens.access_token).jti! },
    });
    expect(row.revokedAt).not.toBeNull();
    expect((await refresh(tokens.refresh_token)).status).toBe(200);
  });

  it('kills the whole refresh family when a refresh token is revoked: every refresh and access token of it', async () => {
    const first = await issueTokens(as, client, user);
    const second = (await refresh(first.refresh_token)).body as {
      access_token: string;
      refresh_token: string;
    };
    expect(await isActive(second.access_token)).toBe(true);

    expectEmpty200(await revoke(second.refresh_token, client, { token_type_hint: 'refresh_token' }));
    expect((await refresh(second.refresh_token)).body.error).toBe('invalid_grant');
    expect(await isActive(first.access_token)).toBe(false);
    expect(await isActive(second.access_token)).toBe(false);
    const grant = await as.prisma.authorizationGrant.findFirstOrThrow({
      where: { clientId: client.clientId },
      orderBy: { createdAt: 'desc' },
    });
    expect(grant.revokedAt).not.toBeNull();
    expect(await as.prisma.refreshToken.count({ where: { grantId: grant.id, consumedAt: null } })).toBe(0);
  });

  it('kills the family from an already rotated refresh token too', async () => {
    const first = await issueTokens(as, client, user);
    const second = (await refresh(first.refresh_token)).body as {
      access_token: string;
      refresh_token: string;
    };
    expectEmpty200(await revoke(first.refresh_token));
    expect((await refresh(second.refresh_token)).body.error).toBe('invalid_grant');
    expect(await isActive(second.access_token)).toBe(false);
  });

  it('takes token_type_hint as a hint only: a wrong or unknown hint still revokes', async () => {
    const tokens = await issueTokens(as, client, user);
    expectEmpty200(await revoke(tokens.refresh_token, client, { token_type_hint: 'access_token' }));
    expect((await refresh(tokens.refresh_token)).body.error).toBe('invalid_grant');
    const more = await issueTokens(as, client, user);
    expectEmpty200(await revoke(more.access_token, client, { token_type_hint: 'urn:example:unknown' }));
    expect(await isActive(more.access_token)).toBe(false);
  });

  it('lets a confidential client revoke only with its credentials', async () => {
    const confidential = await as.createClient({ confidential: 'client_secret_post' });
    const tokens = await issueTokens(as, confidential, user);
    const unauthenticated = await revoke(tokens.refresh_token, confidential);
    expect(unauthenticated.status).toBe(401);
    expect(await isActive(tokens.access_token)).toBe(true);
    expectEmpty200(
      await revoke(tokens.refresh_token, confidential, { client_secret: confidential.clientSecret! }),
    );
    expect(await isActive(tokens.access_token)).toBe(false);
  });

  describe('answers 200 and revokes nothing for', () => {
    it('a token of another client (access or refresh)', async () => {
      const victim = await issueTokens(as, client, user);
      const attacker = await as.createClient();
      expectEmpty200(await revoke(victim.access_token, attacker));
      expectEmpty200(await revoke(victim.refresh_token, attacker));
      expectEmpty200(await postForm(as, 'revoke', { token: victim.refresh_token }, basic(resourceServer)));
      expect(await isActive(victim.access_token)).toBe(true);
      expect((await refresh(victim.refresh_token)).status).toBe(200);
    });

    it('unknown, malformed and foreign tokens', async () => {
      const before = await as.prisma.accessToken.count({ where: { revokedAt: { not: null } } });
      const { privateKey } = await generateKeyPair('ES256');
      const foreign = await new SignJWT({ client_id: client.clientId })
        .setProtectedHeader({ alg: 'ES256', kid: 'other', typ: 'at+jwt' })
        .setIssuer('https://other.example')
        .setJti('x')
        .sign(privateKey);
      for (const token of ['unknown', 'a'.repeat(43), 'a.b.c', foreign]) expectEmpty200(await revoke(token));
      expect(await as.prisma.accessToken.count({ where: { revokedAt: { not: null } } })).toBe(before);
    });
  });

  describe('refuses', () => {
    it('a request without client identification with 401 invalid_client', async () => {
      const tokens = await issueTokens(as, client, user);
      const response = await postForm(as, 'revoke', { token: tokens.access_token });
      expect(response.status).toBe(401);
      expect(response.body.error).toBe('invalid_client');
      expect(await isActive(tokens.access_token)).toBe(true);
    });

    it('a wrong secret with 401 invalid_client', async () => {
      const tokens = await issueTokens(as, client, user);
      const response = await postForm(
        as,
        'revoke',
        { token: tokens.access_token },
        basic({ ...resourceServer, clientSecret: 'x' }),
      );
      expect(response.status).toBe(401);
    });

    it('a missing token with 400 invalid_request', async () => {
      const response = await postForm(as, 'revoke', { client_id: client.clientId });
      expect(response.status).toBe(400);
      expect(response.body.error).toBe('invalid_request');
    });
  });

  it('allows CORS, preflight included, for browser-based clients', async () => {
    const preflight = await fetch(`${as.app.url}/revoke`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    const response = await postForm(
      as,
      'revoke',
      { token: 'x', client_id: client.clientId },
      { origin: 'https://app.example' },
    );
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
  });
});
