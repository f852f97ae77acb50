// Workload identity federation (MCP SEP-1933, https://github.com/modelcontextprotocol/modelcontextprotocol/pull/1933)
// composed by configuration, over real HTTP: a workload's JWT from a trusted issuer is redeemed with the RFC 7523
// jwt-bearer grant with no client registration and no client authentication; the issuer's trust rules give the
// token's client and its most scope. Every refusal issues, stores and uses up nothing. Composed with
// enterprise-managed authorization, the two share the grant type and each redeems its own assertions.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ClientRepository, generateClientSecret, hashClientSecret } from '@portcullis/authorization';
import { ConfigError, parseEnv } from '@portcullis/platform';
import {
  createRemoteJWKSet,
  exportJWK,
  generateKeyPair,
  jwtVerify,
  SignJWT,
  type CryptoKey,
  type JWK,
} from 'jose';
import { envSchema } from '../../src/env.schema.js';
import {
  RESOURCE,
  startAuthorizationServer,
  tokenRequest,
  type AuthorizationServerFixture,
} from '../support/authorization-server.fixture.js';

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const K8S = 'https://k8s.example.com';
const IDP = 'https://idp.example.com';
const SUBJECT = 'system:serviceaccount:prod:agent';

let workloadKey: CryptoKey;
let workloadJwk: JWK;

beforeAll(async () => {
  const pair = await generateKeyPair('ES256', { extractable: true });
  workloadKey = pair.privateKey;
  workloadJwk = { ...(await exportJWK(pair.publicKey)), kid: 'k8s-1', alg: 'ES256' };
});

function issuers(singleUse = false): string {
  return JSON.stringify([
    {
      issuer: K8S,
      ...(singleUse ? { single_use: true } : {}),
      jwks: { keys: [workloadJwk] },
      subjects: [{ subject: 'system:serviceaccount:prod:*', client_id: 'prod-agents', scope: 'notes:read' }],
    },
  ]);
}

interface Workload {
  readonly iss?: string;
  readonly sub?: string;
  readonly aud?: string;
  readonly exp?: number;
  readonly jti?: string;
  readonly key?: CryptoKey;
}

async function workloadJwt(as: AuthorizationServerFixture, options: Workload = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: 'ES256', kid: 'k8s-1' })
    .setIssuer(options.iss ?? K8S)
    .setSubject(options.sub ?? SUBJECT)
    .setAudience(options.aud ?? as.issuer)
    .setIssuedAt(now - 5)
    .setExpirationTime(options.exp ?? now + 600)
    .setJti(options.jti ?? randomUUID())
    .sign(options.key ?? workloadKey);
}

/** A JWT signed with a symmetric key or none: never acceptable (RFC 8725 3.1). */
function weakJwt(as: AuthorizationServerFixture, alg: 'none' | 'HS256'): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  const claims = { iss: K8S, sub: SUBJECT, aud: as.issuer, iat: now, exp: now + 600, jti: randomUUID() };
  return `${part({ alg, typ: 'JWT' })}.${part(claims)}.${alg === 'none' ? '' : 'c2lnbmF0dXJl'}`;
}

/** Everything a token request may write: the fixture's counts and the used JWT ids. */
async function persisted(as: AuthorizationServerFixture) {
  return { ...(await as.counts()), usedJwtIds: await as.prisma.usedJwtId.count() };
}

async function verifiedClaims(as: AuthorizationServerFixture, token: unknown) {
  const { payload } = await jwtVerify(token as string, createRemoteJWKSet(new URL(`${as.issuer}/jwks`)), {
    issuer: as.issuer,
    audience: RESOURCE,
  });
  return payload;
}

describe('WORKLOAD_IDENTITY_ISSUERS', () => {
  it('is required with EXTENSIONS=workload-identity, refused without it, and must be a JSON list of issuers', () => {
    const refusals: string[] = [];
    for (const env of [
      { EXTENSIONS: 'workload-identity' },
      { EXTENSIONS: 'workload-identity', WORKLOAD_IDENTITY_ISSUERS: 'not json' },
      { EXTENSIONS: 'workload-identity', WORKLOAD_IDENTITY_ISSUERS: JSON.stringify([{ issuer: K8S }]) },
      { WORKLOAD_IDENTITY_ISSUERS: issuers() },
      {
        EXTENSIONS: 'workload-identity',
        ISSUER: K8S,
        WORKLOAD_IDENTITY_ISSUERS: issuers(),
      },
    ]) {
      try {
        parseEnv(envSchema, env);
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        refusals.push((error as Error).message);
      }
    }
    expect(refusals).toHaveLength(5);
    for (const message of refusals) expect(message).toMatch(/WORKLOAD_IDENTITY_ISSUERS/);
  });
});

describe('the workload identity grant (EXTENSIONS=workload-identity)', () => {
  let as: AuthorizationServerFixture;

  beforeAll(async () => {
    as = await startAuthorizationServer({
      env: { EXTENSIONS: 'workload-identity', WORKLOAD_IDENTITY_ISSUERS: issuers() },
    });
  });
  afterAll(async () => {
    await as?.close();
  });

  const redeem = (
    assertion: string,
    extra: Record<string, string> = {},
    headers: Record<string, string> = {},
  ) => tokenRequest(as, { grant_type: JWT_BEARER, assertion, resource: RESOURCE, ...extra }, headers);

  it('is advertised, and issues a token to the rule’s client for the namespaced workload, with no registration', async () => {
    const metadata = (await (await fetch(`${as.issuer}/.well-known/oauth-authorization-server`)).json()) as {
      grant_types_supported: string[];
    };
    expect(metadata.grant_types_supported).toContain(JWT_BEARER);
    const before = await persisted(as);
    const token = await redeem(await workloadJwt(as), { scope: 'notes:read' });
    expect(token.status).toBe(200);
    expect(token.body['refresh_token']).toBeUndefined();
    expect(token.body['scope']).toBe('notes:read');
    expect(await verifiedClaims(as, token.body['access_token'])).toMatchObject({
      sub: `${K8S}#${SUBJECT}`,
      client_id: 'prod-agents',
      aud: RESOURCE,
      scope: 'notes:read',
    });
    expect(await persisted(as)).toEqual({
      ...before,
      accessTokens: before.accessTokens + 1,
    });
  });

  it('gives the rule’s scope when none is requested, takes the token endpoint as audience, and a client_id naming the rule’s client', async () => {
    const token = await redeem(await workloadJwt(as, { aud: `${as.issuer}/token` }), {
      client_id: 'prod-agents',
    });
    expect(token.status).toBe(200);
    expect(token.body['scope']).toBe('notes:read');
  });

  describe('refuses, issuing, storing and using up nothing,', () => {
    const now = () => Math.floor(Date.now() / 1000);
    const cases: ReadonlyArray<[string, () => Promise<string>, Record<string, string>, string]> = [
      [
        'an untrusted issuer',
        () => workloadJwt(as, { iss: 'https://rogue.example.com' }),
        {},
        'invalid_grant',
      ],
      [
        'a key the issuer does not hold',
        async () => workloadJwt(as, { key: (await generateKeyPair('ES256')).privateKey }),
        {},
        'invalid_grant',
      ],
      [
        'a wrong audience',
        () => workloadJwt(as, { aud: 'https://other-as.example.com' }),
        {},
        'invalid_grant',
      ],
      ['an expired JWT', () => workloadJwt(as, { exp: now() - 120 }), {}, 'invalid_grant'],
      [
        'a subject outside every pattern',
        () => workloadJwt(as, { sub: 'system:serviceaccount:dev:agent' }),
        {},
        'unauthorized_client',
      ],
      [
        'a scope beyond the rule’s',
        () => workloadJwt(as),
        { scope: 'notes:read notes:write' },
        'invalid_scope',
      ],
      ['alg HS256', async () => weakJwt(as, 'HS256'), {}, 'invalid_grant'],
      ['alg none', async () => weakJwt(as, 'none'), {}, 'invalid_grant'],
      [
        'a client_id that is not the rule’s client',
        () => workloadJwt(as),
        { client_id: 'other' },
        'invalid_grant',
      ],
    ];

    it.each(cases)('%s', async (_name, make, extra, error) => {
      const assertion = await make();
      const before = await persisted(as);
      const refused = await redeem(assertion, extra);
      expect(refused.status).toBe(400);
      expect(refused.body['error']).toBe(error);
      expect(await persisted(as)).toEqual(before);
    });

    it('a workload token presented again is exchanged again (platforms rotate it on their own), recording nothing', async () => {
      const assertion = await workloadJwt(as);
      expect((await redeem(assertion)).status).toBe(200);
      const usedBefore = await as.prisma.usedJwtId.count();
      expect((await redeem(assertion)).status).toBe(200);
      expect(await as.prisma.usedJwtId.count()).toBe(usedBefore);
    });

    it('a request with client credentials that do not authenticate', async () => {
      const before = await persisted(as);
      const refused = await redeem(
        await workloadJwt(as),
        {},
        { authorization: `Basic ${Buffer.from('prod-agents:guess').toString('base64')}` },
      );
      expect([refused.status, refused.body['error']]).toEqual([401, 'invalid_client']);
      expect(await persisted(as)).toEqual(before);
    });

    it('a registered client presenting a workload JWT whose rule names another client', async () => {
      const secret = generateClientSecret();
      const client = await new ClientRepository(as.prisma).create({
        clientId: `dcr-${randomUUID()}`,
        clientName: 'Self-registered',
        redirectUris: [],
        grantTypes: [JWT_BEARER],
        responseTypes: [],
        tokenEndpointAuthMethod: 'client_secret_basic',
        applicationType: 'web',
        origin: 'dynamic',
        secretHash: hashClientSecret(secret),
      });
      const before = await persisted(as);
      const refused = await redeem(
        await workloadJwt(as),
        {},
        { authorization: `Basic ${Buffer.from(`${client.clientId}:${secret}`).toString('base64')}` },
      );
      expect([refused.status, refused.body['error']]).toEqual([400, 'invalid_grant']);
      expect(await persisted(as)).toEqual(before);
    });
  });
});

describe('workload identity and enterprise-managed authorization composed', () => {
  let as: AuthorizationServerFixture;
  let idpKey: CryptoKey;
  let client: { clientId: string; secret: string };

  beforeAll(async () => {
    const pair = await generateKeyPair('ES256', { extractable: true });
    idpKey = pair.privateKey;
    const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'idp-1', alg: 'ES256' };
    as = await startAuthorizationServer({
      env: {
        EXTENSIONS: 'enterprise-managed-authorization,workload-identity',
        ENTERPRISE_IDPS: JSON.stringify([{ issuer: IDP, jwks: { keys: [jwk] } }]),
        WORKLOAD_IDENTITY_ISSUERS: issuers(),
      },
    });
    const secret = generateClientSecret();
    const created = await new ClientRepository(as.prisma).create({
      clientId: `ema-${randomUUID()}`,
      clientName: 'Enterprise agent',
      redirectUris: [],
      grantTypes: [JWT_BEARER],
      responseTypes: [],
      tokenEndpointAuthMethod: 'client_secret_basic',
      applicationType: 'web',
      origin: 'preregistered',
      secretHash: hashClientSecret(secret),
    });
    client = { clientId: created.clientId, secret };
  });
  afterAll(async () => {
    await as?.close();
  });

  const basic = () => ({
    authorization: `Basic ${Buffer.from(`${client.clientId}:${client.secret}`).toString('base64')}`,
  });

  async function idJag(): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ client_id: client.clientId, resource: RESOURCE, scope: 'notes:read' })
      .setProtectedHeader({ alg: 'ES256', kid: 'idp-1', typ: 'oauth-id-jag+jwt' })
      .setIssuer(IDP)
      .setAudience(as.issuer)
      .setSubject('alice@corp.example')
      .setIssuedAt(now)
      .setExpirationTime(now + 300)
      .setJti(randomUUID())
      .sign(idpKey);
  }

  it('lists the shared grant type once', async () => {
    const metadata = (await (await fetch(`${as.issuer}/.well-known/oauth-authorization-server`)).json()) as {
      grant_types_supported: string[];
    };
    expect(metadata.grant_types_supported.filter((grant) => grant === JWT_BEARER)).toHaveLength(1);
  });

  it('redeems an ID-JAG for the authenticated client, and a workload JWT for the rule’s client', async () => {
    const enterprise = await tokenRequest(
      as,
      { grant_type: JWT_BEARER, assertion: await idJag(), resource: RESOURCE },
      basic(),
    );
    expect(enterprise.status).toBe(200);
    expect(await verifiedClaims(as, enterprise.body['access_token'])).toMatchObject({
      sub: `${IDP}#alice@corp.example`,
      client_id: client.clientId,
    });
    const workload = await tokenRequest(as, {
      grant_type: JWT_BEARER,
      assertion: await workloadJwt(as),
      resource: RESOURCE,
    });
    expect(workload.status).toBe(200);
    expect(await verifiedClaims(as, workload.body['access_token'])).toMatchObject({
      sub: `${K8S}#${SUBJECT}`,
      client_id: 'prod-agents',
    });
  });

  it('still authenticates the client of an ID-JAG, and refuses a JWT neither extension takes', async () => {
    const before = await persisted(as);
    const anonymous = await tokenRequest(as, {
      grant_type: JWT_BEARER,
      assertion: await idJag(),
      resource: RESOURCE,
    });
    expect(anonymous.body['error']).toBe('invalid_client');
    const stranger = await tokenRequest(as, {
      grant_type: JWT_BEARER,
      assertion: await workloadJwt(as, { iss: 'https://rogue.example.com' }),
      resource: RESOURCE,
    });
    expect([stranger.status, stranger.body['error']]).toEqual([400, 'invalid_grant']);
    const strangerWithClient = await tokenRequest(
      as,
      {
        grant_type: JWT_BEARER,
        assertion: await workloadJwt(as, { iss: 'https://rogue.example.com' }),
        resource: RESOURCE,
      },
      basic(),
    );
    expect([strangerWithClient.status, strangerWithClient.body['error']]).toEqual([400, 'invalid_grant']);
    expect(await persisted(as)).toEqual(before);
  });
});
