// The io.modelcontextprotocol/enterprise-managed-authorization extension (MCP SEP-990,
// https://github.com/modelcontextprotocol/ext-auth/blob/main/specification/draft/enterprise-managed-authorization.mdx)
// composed by configuration, over real HTTP: an ID-JAG from a trusted identity provider redeemed with the RFC 7523
// jwt-bearer grant by the client it names; every refusal issues and stores nothing and leaves the ID-JAG unused.
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ClientRepository, generateClientSecret, hashClientSecret } from '@portcullis/authorization';
import { ConfigError, parseEnv } from '@portcullis/platform';
import { createRemoteJWKSet, exportJWK, generateKeyPair, jwtVerify, SignJWT, type CryptoKey } from 'jose';
import { envSchema } from '../../src/env.schema.js';
import {
  RESOURCE,
  startAuthorizationServer,
  tokenRequest,
  type AuthorizationServerFixture,
} from '../support/authorization-server.fixture.js';

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const IDP = 'https://idp.example.com';

function basic(clientId: string, secret: string): Record<string, string> {
  return { authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}` };
}

describe('ENTERPRISE_IDPS', () => {
  it('is required with EXTENSIONS=enterprise-managed-authorization, and must be a JSON list of issuers with keys', () => {
    const refusals: string[] = [];
    for (const env of [
      { EXTENSIONS: 'enterprise-managed-authorization' },
      { EXTENSIONS: 'enterprise-managed-authorization', ENTERPRISE_IDPS: 'not json' },
      { EXTENSIONS: 'enterprise-managed-authorization', ENTERPRISE_IDPS: JSON.stringify([{ issuer: IDP }]) },
      {
        EXTENSIONS: 'enterprise-managed-authorization',
        ENTERPRISE_IDPS: JSON.stringify([{ issuer: 'http://idp.example.com', jwks_uri: `${IDP}/jwks` }]),
      },
    ]) {
      try {
        parseEnv(envSchema, env);
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        refusals.push((error as Error).message);
      }
    }
    expect(refusals).toHaveLength(4);
    for (const message of refusals) expect(message).toMatch(/ENTERPRISE_IDPS/);
  });
});

describe('the ID-JAG grant (EXTENSIONS=enterprise-managed-authorization)', () => {
  let as: AuthorizationServerFixture;
  let idpKey: CryptoKey;
  let client: { clientId: string; secret: string };
  let other: { clientId: string; secret: string };

  beforeAll(async () => {
    const pair = await generateKeyPair('ES256', { extractable: true });
    idpKey = pair.privateKey;
    const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'idp-1', alg: 'ES256' };
    as = await startAuthorizationServer({
      env: {
        EXTENSIONS: 'enterprise-managed-authorization',
        ENTERPRISE_IDPS: JSON.stringify([{ issuer: IDP, jwks: { keys: [jwk] } }]),
      },
    });
    client = await confidentialClient();
    other = await confidentialClient();
  });
  afterAll(async () => {
    await as?.close();
  });

  async function confidentialClient(): Promise<{ clientId: string; secret: string }> {
    const secret = generateClientSecret();
    const created = await new ClientRepository(as.prisma).create({
      clientId: `ema-${randomBytes(5).toString('hex')}`,
      clientName: 'Enterprise agent',
      redirectUris: [],
      grantTypes: [JWT_BEARER],
      responseTypes: [],
      tokenEndpointAuthMethod: 'client_secret_basic',
      applicationType: 'web',
      origin: 'preregistered',
      secretHash: hashClientSecret(secret),
    });
    return { clientId: created.clientId, secret };
  }

  interface IdJag {
    readonly key?: CryptoKey;
    readonly typ?: string;
    readonly iss?: string;
    readonly aud?: string;
    readonly clientId?: string;
    readonly resource?: string;
    readonly scope?: string;
    readonly exp?: number;
    readonly jti?: string;
  }

  async function idJag(options: IdJag = {}): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({
      client_id: options.clientId ?? client.clientId,
      resource: options.resource ?? RESOURCE,
      ...(options.scope ? { scope: options.scope } : {}),
    })
      .setProtectedHeader({ alg: 'ES256', kid: 'idp-1', typ: options.typ ?? 'oauth-id-jag+jwt' })
      .setIssuer(options.iss ?? IDP)
      .setAudience(options.aud ?? as.issuer)
      .setSubject('alice@corp.example')
      .setIssuedAt(now)
      .setExpirationTime(options.exp ?? now + 300)
      .setJti(options.jti ?? randomUUID())
      .sign(options.key ?? idpKey);
  }

  const redeem = (assertion: string, who = client, extra: Record<string, string> = {}) =>
    tokenRequest(as, { grant_type: JWT_BEARER, assertion, ...extra }, basic(who.clientId, who.secret));

  it('is advertised, and issues an access token for the user the identity provider names, without a refresh token', async () => {
    const metadata = (await (await fetch(`${as.issuer}/.well-known/oauth-authorization-server`)).json()) as {
      grant_types_supported: string[];
    };
    expect(metadata.grant_types_supported).toContain(JWT_BEARER);
    const before = await as.counts();
    const token = await redeem(await idJag({ scope: 'notes:read notes:write' }), client, {
      scope: 'notes:read',
    });
    expect(token.status).toBe(200);
    expect(token.body['refresh_token']).toBeUndefined();
    expect(token.body['scope']).toBe('notes:read');
    const { payload } = await jwtVerify(
      token.body['access_token'] as string,
      createRemoteJWKSet(new URL(`${as.issuer}/jwks`)),
      {
        issuer: as.issuer,
        audience: RESOURCE,
      },
    );
    expect(payload).toMatchObject({ sub: `${IDP}#alice@corp.example`, client_id: client.clientId });
    expect((await as.counts()).accessTokens).toBe(before.accessTokens + 1);
    // Asked for more than the identity provider granted: the grant's part of it, said in `scope` (RFC 6749 3.3).
    const narrowed = await redeem(await idJag({ scope: 'notes:read' }), client, {
      scope: 'notes:read notes:write',
    });
    expect(narrowed.status).toBe(200);
    expect(narrowed.body['scope']).toBe('notes:read');
  });

  describe('refuses, issuing and storing nothing,', () => {
    const cases: ReadonlyArray<[string, () => Promise<string>, string, Record<string, string>]> = [
      ['an untrusted issuer', async () => idJag({ iss: 'https://rogue.example.com' }), 'invalid_grant', {}],
      [
        'a key the identity provider does not hold',
        async () => idJag({ key: (await generateKeyPair('ES256')).privateKey }),
        'invalid_grant',
        {},
      ],
      [
        'an audience that is not this server',
        async () => idJag({ aud: 'https://other-as.example.com' }),
        'invalid_grant',
        {},
      ],
      [
        'an expired ID-JAG',
        async () => idJag({ exp: Math.floor(Date.now() / 1000) - 120 }),
        'invalid_grant',
        {},
      ],
      ['an ID-JAG for another client', async () => idJag({ clientId: 'someone-else' }), 'invalid_grant', {}],
      [
        'an unknown resource',
        async () => idJag({ resource: 'https://unknown.example.com/mcp' }),
        'invalid_target',
        {},
      ],
      ['a JWT that is not an ID-JAG (typ)', async () => idJag({ typ: 'JWT' }), 'invalid_grant', {}],
      [
        'a wider scope than granted',
        async () => idJag({ scope: 'notes:read' }),
        'invalid_scope',
        { scope: 'notes:write' },
      ],
    ];

    it.each(cases)('%s', async (_name, make, error, extra) => {
      const assertion = await make();
      const before = await as.counts();
      const refused = await redeem(assertion, client, extra);
      expect(refused.status).toBe(400);
      expect(refused.body['error']).toBe(error);
      expect(await as.counts()).toEqual(before);
    });

    it('a replayed ID-JAG, and an ID-JAG presented by another client is not used up', async () => {
      const assertion = await idJag();
      const byOther = await redeem(assertion, other);
      expect(byOther.status).toBe(400);
      expect((await redeem(assertion)).status).toBe(200);
      const before = await as.counts();
      const replayed = await redeem(assertion);
      expect(replayed.status).toBe(400);
      expect(replayed.body['error_description']).toContain('already used');
      expect(await as.counts()).toEqual(before);
    });

    it('a wrong client secret', async () => {
      const before = await as.counts();
      const refused = await redeem(await idJag(), { ...client, secret: 'wrong' });
      expect(refused.status).toBe(401);
      expect(refused.body['error']).toBe('invalid_client');
      expect(await as.counts()).toEqual(before);
    });
  });
});
