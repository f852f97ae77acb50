import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { decodeJwt, generateKeyPair, importJWK, SignJWT, type CryptoKey, type JWK } from 'jose';
import {
  RESOURCE,
  startAuthorizationServer,
  type AuthorizationServerFixture,
  type TestClient,
} from '../support/authorization-server.fixture.js';
import { basic, issueTokens, postForm } from './introspection.helpers.js';

describe('introspection of access tokens (RFC 7662)', () => {
  let as: AuthorizationServerFixture;
  let resourceServer: TestClient;
  let client: TestClient;
  let user: { id: string; username: string; password: string };
  beforeAll(async () => {
    as = await startAuthorizationServer();
    resourceServer = await as.createClient({
      confidential: 'client_secret_basic',
      name: 'Notes API',
      resourceServer: RESOURCE,
    });
    client = await as.createClient();
    user = await as.createUser();
  });
  afterAll(async () => {
    await as?.close();
  });

  const introspect = (token: string, extra: Record<string, string> = {}) =>
    postForm(as, 'introspect', { token, ...extra }, basic(resourceServer));

  /** Asserts the exact RFC 7662 inactive answer: `{"active":false}` and nothing else. */
  async function expectInactive(token: string): Promise<void> {
    const response = await introspect(token);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.text).toBe('{"active":false}');
  }

  /** A key pair of the server's own, read from its database, to forge tokens that are wrong in one respect. */
  async function serverKey(): Promise<{ kid: string; key: CryptoKey }> {
    const row = await as.prisma.signingKey.findFirstOrThrow({ where: { retiredAt: null } });
    return { kid: row.kid, key: (await importJWK(JSON.parse(row.privateJwk) as JWK, 'ES256')) as CryptoKey };
  }

  /**
   * A token with the claims of a live one (so its `jti` is on record), re-signed with `key`, with some claims or
   * the `typ` replaced: whatever makes it inactive is the one thing changed.
   */
  async function resigned(
    key: CryptoKey,
    kid: string,
    changes: { claims?: Record<string, unknown>; typ?: string } = {},
  ): Promise<string> {
    const live = decodeJwt((await issueTokens(as, client, user)).access_token);
    return new SignJWT({ ...live, ...changes.claims })
      .setProtectedHeader({ alg: 'ES256', kid, typ: changes.typ ?? 'at+jwt' })
      .sign(key);
  }

  it('describes an active token to an authenticated resource server, uncached', async () => {
    const tokens = await issueTokens(as, client, user);
    const claims = decodeJwt(tokens.access_token);
    const response = await introspect(tokens.access_token);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('content-type')).toContain('application/json');
    expect(response.body).toEqual({
      active: true,
      scope: 'notes:read notes:write',
      client_id: client.clientId,
      sub: user.id,
      aud: RESOURCE,
      exp: claims.exp,
      iat: claims.iat,
      iss: as.issuer,
      token_type: 'Bearer',
      jti: claims.jti,
    });
  });

  it('accepts client_secret_post as well, and takes token_type_hint as a hint only', async () => {
    const poster = await as.createClient({ confidential: 'client_secret_post', resourceServer: RESOURCE });
    const tokens = await issueTokens(as, client, user);
    const response = await postForm(as, 'introspect', {
      token: tokens.access_token,
      token_type_hint: 'refresh_token',
      client_id: poster.clientId,
      client_secret: poster.clientSecret,
    });
    expect(response.body.active).toBe(true);
    expect((await introspect(tokens.access_token, { token_type_hint: 'nonsense' })).body.active).toBe(true);
  });

  describe('is for resource servers: the exact inactive answer, and nothing written, to', () => {
    async function expectInactiveFor(caller: Record<string, string>): Promise<void> {
      const tokens = await issueTokens(as, client, user);
      const before = await as.counts();
      const response = await postForm(as, 'introspect', { token: tokens.access_token }, caller);
      expect(response.status).toBe(200);
      expect(response.text).toBe('{"active":false}');
      expect(await as.counts()).toEqual(before);
      // The same token is active for its resource server: the refusal is about the caller, not the token.
      expect((await introspect(tokens.access_token)).body.active).toBe(true);
    }

    it('a confidential client the operator did not make a resource server', async () => {
      await expectInactiveFor(basic(await as.createClient({ confidential: 'client_secret_basic' })));
    });

    it('a confidential client that registered itself a moment ago', async () => {
      const registered = await fetch(`${as.app.url}/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          client_name: 'Curious',
          application_type: 'web',
          redirect_uris: ['https://curious.example/cb'],
          token_endpoint_auth_method: 'client_secret_basic',
        }),
      });
      const body = (await registered.json()) as Record<string, string>;
      expect({ status: registered.status, error: body['error_description'] }).toEqual({
        status: 201,
        error: undefined,
      });
      const { client_id: clientId, client_secret: clientSecret } = body;
      await expectInactiveFor(basic({ clientId: clientId!, clientSecret: clientSecret!, redirectUri: '' }));
    });

    it('the resource server of another resource', async () => {
      await expectInactiveFor(
        basic(
          await as.createClient({
            confidential: 'client_secret_basic',
            resourceServer: 'https://other.example/mcp',
          }),
        ),
      );
    });
  });

  it('answers active for a live token re-signed with its own key (the control for the forgeries below)', async () => {
    const { kid, key } = await serverKey();
    expect((await introspect(await resigned(key, kid))).body.active).toBe(true);
  });

  it('answers inactive for an expired token', async () => {
    const { kid, key } = await serverKey();
    const now = Math.floor(Date.now() / 1000);
    await expectInactive(await resigned(key, kid, { claims: { iat: now - 600, exp: now - 1 } }));
  });

  it('answers inactive once the token itself is revoked', async () => {
    const tokens = await issueTokens(as, client, user);
    expect((await introspect(tokens.access_token)).body.active).toBe(true);
    await as.prisma.accessToken.update({
      where: { jti: decodeJwt(tokens.access_token).jti! },
      data: { revokedAt: new Date() },
    });
    await expectInactive(tokens.access_token);
  });

  it('answers inactive once the grant it descends from is revoked', async () => {
    const tokens = await issueTokens(as, client, user);
    const row = await as.prisma.accessToken.findUniqueOrThrow({
      where: { jti: decodeJwt(tokens.access_token).jti! },
    });
    await as.prisma.authorizationGrant.update({
      where: { id: row.grantId! },
      data: { revokedAt: new Date() },
    });
    await expectInactive(tokens.access_token);
  });

  describe('answers inactive for a token it did not issue:', () => {
    it('unknown opaque strings', async () => {
      for (const token of ['nope', 'a'.repeat(43), 'a.b.c', 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.'])
        await expectInactive(token);
    });

    it('a well-signed token whose jti was never issued', async () => {
      const { kid, key } = await serverKey();
      await expectInactive(await resigned(key, kid, { claims: { jti: randomUUID() } }));
    });

    it('a token signed by another key under an unknown kid', async () => {
      const { privateKey } = await generateKeyPair('ES256');
      await expectInactive(await resigned(privateKey, 'someone-elses-key'));
    });

    it("a token signed by another key under this server's kid", async () => {
      const { privateKey } = await generateKeyPair('ES256');
      await expectInactive(await resigned(privateKey, (await serverKey()).kid));
    });

    it("a token of another issuer, even signed with this server's key", async () => {
      const { kid, key } = await serverKey();
      await expectInactive(await resigned(key, kid, { claims: { iss: 'https://other-issuer.example' } }));
    });

    it('a token typed as something else than at+jwt', async () => {
      const { kid, key } = await serverKey();
      await expectInactive(await resigned(key, kid, { typ: 'JWT' }));
    });

    it('an ID token (typ JWT, not at+jwt)', async () => {
      const tokens = await issueTokens(as, client, user, 'openid notes:read');
      expect(tokens.id_token).toBeDefined();
      await expectInactive(tokens.id_token!);
    });

    it('an alg=none token', async () => {
      const tokens = await issueTokens(as, client, user);
      const [, payload] = tokens.access_token.split('.');
      const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'at+jwt' })).toString('base64url');
      await expectInactive(`${header}.${payload}.`);
    });
  });
});
