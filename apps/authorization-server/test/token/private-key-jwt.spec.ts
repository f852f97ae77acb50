import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ClientRepository } from '@portcullis/authorization';
import { HeadlessUserAgent, makeTestCertificates } from '@portcullis/testing';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import {
  authorizationRequest,
  authorize,
  RESOURCE,
  tokenRequest,
  type AuthorizationServerFixture,
  type TestClient,
} from '../support/authorization-server.fixture.js';
import { startCimdAuthorizationServer, tableLookup } from '../support/cimd-authorization-server.js';
import { startDocumentServer, type DocumentServer } from '../support/cimd-document-server.js';
import { register } from '../registration/registration.helpers.js';

const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
const REDIRECT_URI = 'http://127.0.0.1/callback';

interface KeyPair {
  readonly privateKey: CryptoKey;
  readonly publicJwk: JWK;
}

async function keyPair(alg = 'ES256', kid = randomUUID()): Promise<KeyPair> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg } };
}

/**
 * `private_key_jwt` at the token, revocation and introspection endpoints (RFC 7523 2.2 and 3): the happy paths and
 * each way an assertion is refused, over real HTTP; a refused assertion issues nothing and uses nothing up.
 */
describe('private_key_jwt client authentication', () => {
  let as: AuthorizationServerFixture;
  let documents: DocumentServer;
  let key: KeyPair;
  let client: TestClient;

  beforeAll(async () => {
    const certificates = makeTestCertificates();
    documents = await startDocumentServer(certificates);
    as = await startCimdAuthorizationServer({
      fetchOptions: { lookup: tableLookup({ localhost: ['127.0.0.1'] }), ca: certificates.ca },
      env: { CIMD_ALLOW_LOOPBACK: 'true' },
    });
    key = await keyPair();
    client = await keyClient({ jwks: { keys: [key.publicJwk] } });
  });
  afterAll(async () => {
    await as?.close();
    await documents?.close();
  });

  async function keyClient(metadata: Record<string, unknown>): Promise<TestClient> {
    const created = await new ClientRepository(as.prisma).create({
      clientId: `pkj-${randomBytes(6).toString('hex')}`,
      clientName: 'Key client',
      redirectUris: [REDIRECT_URI],
      grantTypes: ['authorization_code', 'refresh_token'],
      tokenEndpointAuthMethod: 'private_key_jwt',
      applicationType: 'web',
      origin: 'preregistered',
      metadata,
    });
    return { clientId: created.clientId, redirectUri: REDIRECT_URI };
  }

  interface AssertionOptions {
    readonly signer?: KeyPair;
    readonly alg?: string;
    readonly iss?: string;
    readonly sub?: string;
    readonly aud?: string;
    readonly exp?: number;
    readonly jti?: string;
    readonly forClient?: TestClient;
  }

  async function assertion(options: AssertionOptions = {}): Promise<string> {
    const target = options.forClient ?? client;
    const signer = options.signer ?? key;
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ jti: options.jti ?? randomUUID() })
      .setProtectedHeader({ alg: options.alg ?? 'ES256', kid: signer.publicJwk.kid! })
      .setIssuer(options.iss ?? target.clientId)
      .setSubject(options.sub ?? target.clientId)
      .setAudience(options.aud ?? as.issuer)
      .setIssuedAt(now)
      .setExpirationTime(options.exp ?? now + 60)
      .sign(signer.privateKey);
  }

  /** A fresh authorization code for `forClient` and the request it came from. */
  async function code(forClient = client) {
    const user = await as.createUser();
    const request = authorizationRequest(as, forClient);
    const callback = await authorize(new HeadlessUserAgent(), request, user, forClient);
    return { request, code: callback.searchParams.get('code')! };
  }

  function redeemWith(forClient: TestClient, issued: Awaited<ReturnType<typeof code>>, signed: string) {
    return tokenRequest(as, {
      grant_type: 'authorization_code',
      code: issued.code,
      redirect_uri: forClient.redirectUri,
      code_verifier: issued.request.verifier,
      resource: RESOURCE,
      client_assertion_type: ASSERTION_TYPE,
      client_assertion: signed,
    });
  }

  it('is advertised with asymmetric algorithms only', async () => {
    const metadata = (await (
      await fetch(`${as.issuer}/.well-known/oauth-authorization-server`)
    ).json()) as Record<string, string[]>;
    for (const endpoint of ['token_endpoint', 'introspection_endpoint', 'revocation_endpoint']) {
      expect(metadata[`${endpoint}_auth_methods_supported`]).toContain('private_key_jwt');
      const algs = metadata[`${endpoint}_auth_signing_alg_values_supported`]!;
      expect(algs).toEqual(expect.arrayContaining(['ES256', 'RS256', 'PS256', 'EdDSA']));
      expect(algs.some((alg) => alg === 'none' || alg.startsWith('HS'))).toBe(false);
    }
  });

  it('redeems a code with an assertion for the issuer, and one for the token endpoint', async () => {
    for (const aud of [as.issuer, `${as.issuer}/token`]) {
      const issued = await code();
      const token = await redeemWith(client, issued, await assertion({ aud }));
      expect(token.status).toBe(200);
      expect(token.body).toMatchObject({ token_type: 'Bearer' });
    }
  });

  it('authenticates at revocation too, naming the client by the assertion alone', async () => {
    const revoked = await fetch(`${as.issuer}/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        token: 'not-a-token',
        client_assertion_type: ASSERTION_TYPE,
        client_assertion: await assertion(),
      }).toString(),
    });
    expect(revoked.status).toBe(200);
    const refused = await fetch(`${as.issuer}/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        token: 'not-a-token',
        client_assertion_type: ASSERTION_TYPE,
        client_assertion: await assertion({ signer: await keyPair() }),
      }).toString(),
    });
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: string }).error).toBe('invalid_client');
  });

  describe('refuses, with invalid_client and nothing issued or used up,', () => {
    const cases: ReadonlyArray<[string, () => Promise<string>, string]> = [
      ['an audience that is not this server', () => assertion({ aud: 'https://other.example.com' }), 'aud'],
      ['an expired assertion', () => assertion({ exp: Math.floor(Date.now() / 1000) - 120 }), 'expired'],
      [
        'one valid for an hour',
        () => assertion({ exp: Math.floor(Date.now() / 1000) + 3600 }),
        'expire within',
      ],
      ['an issuer other than the client', () => assertion({ iss: 'someone-else' }), 'iss'],
      [
        'an HMAC signature (a symmetric alg)',
        async () =>
          new SignJWT({ jti: randomUUID() })
            .setProtectedHeader({ alg: 'HS256' })
            .setIssuer(client.clientId)
            .setSubject(client.clientId)
            .setAudience(as.issuer)
            .setIssuedAt()
            .setExpirationTime('1m')
            .sign(randomBytes(32)),
        'signed with one of',
      ],
      [
        'a key that is not in the client set',
        async () => assertion({ signer: await keyPair() }),
        'not signed by',
      ],
      ['alg none', async () => unsignedAssertion(client.clientId, as.issuer), 'signed with one of'],
    ];

    it.each(cases)('%s', async (_name, make, reason) => {
      const issued = await code();
      const before = await as.counts();
      const refused = await redeemWith(client, issued, await make());
      expect(refused.status).toBe(401);
      expect(refused.body['error']).toBe('invalid_client');
      expect(String(refused.body['error_description'])).toContain(reason);
      expect(await as.counts()).toEqual(before);
      // The code was not consumed by the refused request.
      const redeemed = await redeemWith(client, issued, await assertion());
      expect(redeemed.status).toBe(200);
    });

    it('a replayed jti, however soon', async () => {
      const first = await code();
      const signed = await assertion();
      expect((await redeemWith(client, first, signed)).status).toBe(200);
      const second = await code();
      const before = await as.counts();
      const replayed = await redeemWith(client, second, signed);
      expect(replayed.status).toBe(401);
      expect(replayed.body['error_description']).toContain('already used');
      expect(await as.counts()).toEqual(before);
    });

    it('a client_id beside the assertion that names another client', async () => {
      const issued = await code();
      const before = await as.counts();
      const refused = await tokenRequest(as, {
        grant_type: 'authorization_code',
        code: issued.code,
        redirect_uri: client.redirectUri,
        code_verifier: issued.request.verifier,
        resource: RESOURCE,
        client_id: 'another-client',
        client_assertion_type: ASSERTION_TYPE,
        client_assertion: await assertion(),
      });
      expect(refused.status).toBe(401);
      expect(await as.counts()).toEqual(before);
    });

    it('a secret from a client registered for private_key_jwt', async () => {
      const issued = await code();
      const before = await as.counts();
      const refused = await tokenRequest(as, {
        grant_type: 'authorization_code',
        code: issued.code,
        redirect_uri: client.redirectUri,
        code_verifier: issued.request.verifier,
        resource: RESOURCE,
        client_id: client.clientId,
        client_secret: 'guess',
      });
      expect(refused.status).toBe(401);
      expect(await as.counts()).toEqual(before);
    });
  });

  it('verifies with the keys at the client jwks_uri, fetched through the SSRF guard', async () => {
    const remote = await keyPair('RS256');
    documents.serveJson(
      '/keys/client.jwks',
      { keys: [remote.publicJwk] },
      { 'cache-control': 'max-age=300' },
    );
    const uriClient = await keyClient({ jwks_uri: documents.url('/keys/client.jwks') });
    const issued = await code(uriClient);
    const token = await redeemWith(
      uriClient,
      issued,
      await assertion({ forClient: uriClient, signer: remote, alg: 'RS256' }),
    );
    expect(token.status).toBe(200);
  });

  it('authenticates a client ID metadata document client with the keys its document publishes', async () => {
    const documentKey = await keyPair('EdDSA');
    const path = `/clients/keyed-${randomBytes(4).toString('hex')}.json`;
    documents.serveJson(path, {
      client_id: documents.url(path),
      client_name: 'Keyed document client',
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code'],
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: { keys: [documentKey.publicJwk] },
    });
    const documentClient: TestClient = { clientId: documents.url(path), redirectUri: REDIRECT_URI };
    const issued = await code(documentClient);
    const token = await redeemWith(
      documentClient,
      issued,
      await assertion({ forClient: documentClient, signer: documentKey, alg: 'EdDSA' }),
    );
    expect(token.status).toBe(200);
  });

  it('registers a private_key_jwt client dynamically with its public keys, and refuses one without usable keys', async () => {
    const registered = await register(as, {
      client_name: 'Key CLI',
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'private_key_jwt',
      application_type: 'native',
      jwks: { keys: [key.publicJwk] },
    });
    expect(registered.status).toBe(201);
    expect(registered.body['token_endpoint_auth_method']).toBe('private_key_jwt');
    expect(registered.body['client_secret']).toBeUndefined();

    const clients = await as.prisma.client.count();
    for (const metadata of [
      { jwks: undefined },
      { jwks: { keys: [{ kty: 'oct', k: 'c2VjcmV0' }] } },
      { jwks: { keys: [{ ...key.publicJwk, d: 'private' }] } },
    ]) {
      const refused = await register(as, {
        client_name: 'Key CLI',
        redirect_uris: [REDIRECT_URI],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'private_key_jwt',
        application_type: 'native',
        ...metadata,
      });
      expect(refused.status).toBe(400);
      expect(refused.body['error']).toBe('invalid_client_metadata');
    }
    expect(await as.prisma.client.count()).toBe(clients);
  });
});

/** An assertion with `alg: none` and no signature (RFC 7519 6.1), which must never authenticate anyone. */
function unsignedAssertion(clientId: string, audience: string): string {
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  return `${encode({ alg: 'none' })}.${encode({ iss: clientId, sub: clientId, aud: audience, exp: now + 60, jti: randomUUID() })}.`;
}
