// The authorization server as an enterprise identity provider (MCP SEP-990,
// https://github.com/modelcontextprotocol/ext-auth/blob/main/specification/draft/enterprise-managed-authorization.mdx,
// and draft-ietf-oauth-identity-assertion-authz-grant "Token Exchange"), over real HTTP with two real servers: the
// identity provider (ENTERPRISE_IDP_AUDIENCES) exchanges the ID token it issued to a client for an ID-JAG for the
// other authorization server (ENTERPRISE_IDPS naming the first), which redeems it. Every refusal answers an RFC 6749
// 5.2 error, carries no token and writes nothing.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ConfigError, parseEnv } from '@portcullis/platform';
import { freePort, HeadlessUserAgent } from '@portcullis/testing';
import { UserRepository } from '@portcullis/authorization';
import {
  createRemoteJWKSet,
  decodeProtectedHeader,
  generateKeyPair,
  importJWK,
  jwtVerify,
  SignJWT,
  type CryptoKey,
  type JWK,
} from 'jose';
import { envSchema } from '../../src/env.schema.js';
import {
  authorizationRequest,
  authorize,
  RESOURCE,
  startAuthorizationServer,
  tokenRequest,
  type AuthorizationServerFixture,
  type TestClient,
} from '../support/authorization-server.fixture.js';

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const ID_JAG = 'urn:ietf:params:oauth:token-type:id-jag';
const ID_TOKEN = 'urn:ietf:params:oauth:token-type:id_token';
const RAS_CLIENT_ID = 'agent-at-the-mcp-server';

function basic(client: TestClient): Record<string, string> {
  return {
    authorization: `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}`,
  };
}

describe('ENTERPRISE_IDP_AUDIENCES', () => {
  const enterprise = { EXTENSIONS: 'enterprise-managed-authorization' };
  const audience = (entry: Record<string, unknown>) => JSON.stringify([entry]);
  it.each([
    ['not JSON', { ...enterprise, ENTERPRISE_IDP_AUDIENCES: '[' }],
    [
      'no scope',
      {
        ...enterprise,
        ENTERPRISE_IDP_AUDIENCES: audience({ audience: 'https://as.example.com', clients: { a: 'b' } }),
      },
    ],
    [
      'no client',
      {
        ...enterprise,
        ENTERPRISE_IDP_AUDIENCES: audience({ audience: 'https://as.example.com', scope: 'x' }),
      },
    ],
    [
      'a plain http audience',
      {
        ...enterprise,
        ENTERPRISE_IDP_AUDIENCES: audience({
          audience: 'http://as.example.com',
          scope: 'x',
          metadata_document_clients: true,
        }),
      },
    ],
    [
      'this server as the audience',
      {
        ...enterprise,
        ISSUER: 'https://idp.example.com',
        ENTERPRISE_IDP_AUDIENCES: audience({
          audience: 'https://idp.example.com',
          scope: 'x',
          metadata_document_clients: true,
        }),
      },
    ],
    [
      'without the extension',
      {
        ENTERPRISE_IDP_AUDIENCES: audience({
          audience: 'https://as.example.com',
          scope: 'x',
          metadata_document_clients: true,
        }),
      },
    ],
  ])('refuses %s at boot, naming the variable', (_, env) => {
    expect(() => parseEnv(envSchema, env)).toThrow(ConfigError);
    expect(() => parseEnv(envSchema, env)).toThrow(/ENTERPRISE_IDP_AUDIENCES/);
  });

  it('refuses ENTERPRISE_IDPS naming this server: an identity provider never redeems its own ID-JAGs', () => {
    const env = {
      ...enterprise,
      ISSUER: 'https://as.example.com',
      ENTERPRISE_IDPS: JSON.stringify([
        { issuer: 'https://as.example.com', jwks_uri: 'https://as.example.com/jwks' },
      ]),
    };
    expect(() => parseEnv(envSchema, env)).toThrow(/ENTERPRISE_IDPS.*names this server/);
  });
});

describe('the token exchange of an identity provider (ENTERPRISE_IDP_AUDIENCES), redeemed at another server', () => {
  let idp: AuthorizationServerFixture;
  let ras: AuthorizationServerFixture;
  let agent: TestClient;
  let unmapped: TestClient;
  let publicClient: TestClient;
  let rasAgent: TestClient;
  let user: { id: string; username: string; password: string };
  let idToken: string;

  beforeAll(async () => {
    const [idpPort, rasPort] = [await freePort(), await freePort()];
    const [idpIssuer, rasIssuer] = [`http://localhost:${idpPort}`, `http://localhost:${rasPort}`];
    // The mapping names the agent's client ID at the other server; the agent's ID here is made before the boot.
    const agentId = `agent-${idpPort}`;
    idp = await startAuthorizationServer({
      port: idpPort,
      env: {
        EXTENSIONS: 'enterprise-managed-authorization',
        ENTERPRISE_IDP_AUDIENCES: JSON.stringify([
          { audience: rasIssuer, scope: 'notes:read notes:write', clients: { [agentId]: RAS_CLIENT_ID } },
        ]),
      },
    });
    ras = await startAuthorizationServer({
      port: rasPort,
      env: {
        EXTENSIONS: 'enterprise-managed-authorization',
        ENTERPRISE_IDPS: JSON.stringify([{ issuer: idpIssuer, jwks_uri: `${idpIssuer}/jwks` }]),
        // The identity provider's jwks_uri is fetched through the SSRF guard: loopback only in development.
        CIMD_ALLOW_LOOPBACK: 'true',
      },
    });
    const grantTypes = ['authorization_code', TOKEN_EXCHANGE];
    agent = await idp.createClient({ clientId: agentId, confidential: 'client_secret_basic', grantTypes });
    unmapped = await idp.createClient({ confidential: 'client_secret_basic', grantTypes });
    publicClient = await idp.createClient({ grantTypes });
    rasAgent = await ras.createClient({
      clientId: RAS_CLIENT_ID,
      confidential: 'client_secret_basic',
      grantTypes: [JWT_BEARER],
      redirectUris: [],
    });
    user = await idp.createUser();
    idToken = await signIn(agent);
  }, 60_000);
  afterAll(async () => {
    await idp?.close();
    await ras?.close();
  });

  /** `who` signs in at the identity provider through `client` (OpenID Connect): the token response. */
  async function signInTokens(client: TestClient, who = user): Promise<Record<string, unknown>> {
    const request = authorizationRequest(idp, client, { scope: 'openid notes:read' });
    const callback = await authorize(new HeadlessUserAgent(), request, who, client);
    const token = await tokenRequest(
      idp,
      {
        grant_type: 'authorization_code',
        code: callback.searchParams.get('code') ?? undefined,
        redirect_uri: client.redirectUri,
        code_verifier: request.verifier,
        resource: RESOURCE,
        ...(client.clientSecret ? {} : { client_id: client.clientId }),
      },
      client.clientSecret ? basic(client) : {},
    );
    expect(token.status).toBe(200);
    return token.body;
  }

  /** The user's ID token, issued to `client`. */
  const signIn = async (client: TestClient) => (await signInTokens(client))['id_token'] as string;

  const exchange = (params: Record<string, string | undefined> = {}, client: TestClient = agent) =>
    tokenRequest(
      idp,
      {
        grant_type: TOKEN_EXCHANGE,
        requested_token_type: ID_JAG,
        subject_token: idToken,
        subject_token_type: ID_TOKEN,
        audience: ras.issuer,
        resource: RESOURCE,
        scope: 'notes:read notes:write',
        ...params,
      },
      client.clientSecret ? basic(client) : {},
    );

  it('advertises the grant and the ID-JAG token type in its metadata', async () => {
    const metadata = (await (
      await fetch(`${idp.issuer}/.well-known/oauth-authorization-server`)
    ).json()) as Record<string, unknown>;
    expect(metadata['grant_types_supported']).toContain(TOKEN_EXCHANGE);
    expect(metadata['identity_chaining_requested_token_types_supported']).toEqual([ID_JAG]);
    expect(metadata['authorization_grant_profiles_supported']).toBeUndefined();
    // The server that redeems them lists the ID-JAG grant profile instead (SEP-990 section 6).
    const redeemer = (await (
      await fetch(`${ras.issuer}/.well-known/oauth-authorization-server`)
    ).json()) as Record<string, unknown>;
    expect(redeemer['authorization_grant_profiles_supported']).toEqual([
      'urn:ietf:params:oauth:grant-profile:id-jag',
    ]);
    expect(redeemer['grant_types_supported']).toContain(JWT_BEARER);
    expect(redeemer['identity_chaining_requested_token_types_supported']).toBeUndefined();
  });

  it('issues an ID-JAG for the other server, which redeems it for an access token for the user', async () => {
    const before = await idp.counts();
    const response = await exchange();
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.body).toMatchObject({
      issued_token_type: ID_JAG,
      token_type: 'N_A',
      expires_in: 300,
      scope: 'notes:read notes:write',
    });
    expect(response.body['refresh_token']).toBeUndefined();
    const idJag = response.body['access_token'] as string;
    expect(decodeProtectedHeader(idJag).typ).toBe('oauth-id-jag+jwt');
    const { payload } = await jwtVerify(idJag, createRemoteJWKSet(new URL(`${idp.issuer}/jwks`)), {
      issuer: idp.issuer,
      audience: ras.issuer,
      typ: 'oauth-id-jag+jwt',
    });
    expect(payload).toMatchObject({
      sub: user.id,
      client_id: RAS_CLIENT_ID,
      resource: RESOURCE,
      scope: 'notes:read notes:write',
    });
    expect(typeof payload['auth_time']).toBe('number');
    expect(typeof payload.jti).toBe('string');
    // The identity provider stores nothing for an ID-JAG.
    expect(await idp.counts()).toEqual(before);

    const redeemed = await tokenRequest(ras, { grant_type: JWT_BEARER, assertion: idJag }, basic(rasAgent));
    expect(redeemed.status).toBe(200);
    const { payload: access } = await jwtVerify(
      redeemed.body['access_token'] as string,
      createRemoteJWKSet(new URL(`${ras.issuer}/jwks`)),
      { issuer: ras.issuer, audience: RESOURCE },
    );
    expect(access).toMatchObject({ sub: `${idp.issuer}#${user.id}`, client_id: RAS_CLIENT_ID });
    expect(redeemed.body['scope']).toBe('notes:read notes:write');
    // Used once at the other server.
    const again = await tokenRequest(ras, { grant_type: JWT_BEARER, assertion: idJag }, basic(rasAgent));
    expect(again.body).toMatchObject({ error: 'invalid_grant' });
  });

  it('lets a client register itself for the token exchange (its authority is the ID token, not the registration)', async () => {
    const response = await fetch(`${idp.issuer}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Self-registered agent',
        application_type: 'native',
        redirect_uris: ['http://127.0.0.1/callback'],
        grant_types: ['authorization_code', TOKEN_EXCHANGE],
        token_endpoint_auth_method: 'client_secret_basic',
      }),
    });
    const body = (await response.json()) as Record<string, unknown>;
    expect(response.status).toBe(201);
    expect((body as Record<string, unknown>)['grant_types']).toEqual(['authorization_code', TOKEN_EXCHANGE]);
  });

  it('narrows the scope to what the policy allows, and says so', async () => {
    const response = await exchange({ scope: 'notes:read admin' });
    expect(response.status).toBe(200);
    expect(response.body['scope']).toBe('notes:read');
  });

  describe('refuses, issuing and storing nothing', () => {
    async function refused(
      response: Promise<{ status: number; body: Record<string, unknown> }>,
      error: string,
    ): Promise<void> {
      const before = await idp.counts();
      const { status, body } = await response;
      expect(status).toBe(error === 'invalid_client' ? 401 : 400);
      expect(body['error']).toBe(error);
      expect(body['access_token']).toBeUndefined();
      expect(await idp.counts()).toEqual(before);
    }

    it('a public client (the draft: confidential clients only)', async () => {
      const token = await signIn(publicClient);
      await refused(
        exchange({ subject_token: token, client_id: publicClient.clientId }, publicClient),
        'invalid_client',
      );
    });

    it('an ID token issued to another client', async () => {
      const othersToken = await signIn(unmapped);
      await refused(exchange({ subject_token: othersToken }, agent), 'invalid_grant');
    });

    it('a client the policy does not map for the audience', async () => {
      const own = await signIn(unmapped);
      await refused(exchange({ subject_token: own }, unmapped), 'invalid_target');
    });

    it('an audience outside the policy, or this server itself', async () => {
      await refused(exchange({ audience: 'https://elsewhere.example.com' }), 'invalid_target');
      await refused(exchange({ audience: idp.issuer }), 'invalid_target');
      await refused(exchange({ audience: undefined }), 'invalid_request');
    });

    it('a scope wholly outside the policy', async () => {
      await refused(exchange({ scope: 'admin' }), 'invalid_scope');
    });

    it('another requested or subject token type, or an actor token', async () => {
      await refused(
        exchange({ requested_token_type: 'urn:ietf:params:oauth:token-type:access_token' }),
        'invalid_request',
      );
      await refused(
        exchange({ subject_token_type: 'urn:ietf:params:oauth:token-type:access_token' }),
        'unsupported_token_type',
      );
      await refused(exchange({ actor_token: idToken, actor_token_type: ID_TOKEN }), 'invalid_request');
    });

    it('an access token, a token signed by another key, an expired ID token, or garbage as subject_token', async () => {
      const tokens = await signInTokens(agent);
      await refused(exchange({ subject_token: tokens['access_token'] as string }), 'invalid_grant');

      const { kid } = decodeProtectedHeader(idToken);
      const now = Math.floor(Date.now() / 1000);
      const forge = (key: CryptoKey, exp: number) =>
        new SignJWT({ auth_time: now })
          .setProtectedHeader({ alg: 'ES256', kid: kid!, typ: 'JWT' })
          .setIssuer(idp.issuer)
          .setSubject(user.id)
          .setAudience(agent.clientId)
          .setIssuedAt(now - 600)
          .setExpirationTime(exp)
          .sign(key);
      // The identity provider's own key (stored unsealed: no KEY_ENCRYPTION_KEY in tests) signs a valid one, so
      // the expired one is refused for its expiry alone.
      const row = await idp.prisma.signingKey.findUniqueOrThrow({ where: { kid: kid! } });
      const own = (await importJWK(JSON.parse(row.privateJwk) as JWK, 'ES256')) as CryptoKey;
      const valid = await exchange({ subject_token: await forge(own, now + 300) });
      expect(valid.status).toBe(200);
      await refused(exchange({ subject_token: await forge(own, now - 120) }), 'invalid_grant');
      const stranger = await generateKeyPair('ES256');
      await refused(
        exchange({ subject_token: await forge(stranger.privateKey, now + 300) }),
        'invalid_grant',
      );
      await refused(exchange({ subject_token: 'not.a.jwt' }), 'invalid_grant');
    });

    it('the ID token of a user who no longer exists', async () => {
      const gone = await idp.createUser();
      const tokens = await signInTokens(agent, gone);
      await new UserRepository(idp.prisma).delete(gone.id);
      await refused(exchange({ subject_token: tokens['id_token'] as string }), 'invalid_grant');
    });
  });
});
