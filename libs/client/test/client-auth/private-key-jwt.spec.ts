// private_key_jwt over real HTTP (RFC 7523 2.2 and 3): every token request of a client configured with a private
// key (the code redemption and the refresh, a pre-registered client and a dynamically registered one) carries a
// client assertion that verifies with jose against the public key; a server that does not accept the method or the
// key's algorithm is refused before anything is sent.
import { afterEach, describe, expect, it } from '@jest/globals';
import {
  createLocalJWKSet,
  exportPKCS8,
  generateKeyPair,
  jwtVerify,
  type CryptoKey,
  type JSONWebKeySet,
  type JWTVerifyGetKey,
} from 'jose';
import {
  importClientAssertionKey,
  type ClientAssertionKey,
} from '../../src/client-auth/client-assertion-key.js';
import { findPortcullisError } from '../../src/errors/portcullis-error.js';
import { MemoryTokenStore } from '../../src/store/memory-token-store.js';
import {
  FakeAuthorizationServer,
  type FakeAuthorizationServerOptions,
  type TokenRequestRecord,
} from '../support/authorization-server.fixture.js';
import { clientFor } from '../support/client.js';
import { FakeResourceServer, rpc } from '../support/resource-server.fixture.js';

const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

function acceptingPrivateKeyJwt(
  algorithms: readonly string[] = ['ES256', 'RS256'],
): FakeAuthorizationServerOptions {
  return {
    metadata: (document) => ({
      ...document,
      token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'private_key_jwt'],
      token_endpoint_auth_signing_alg_values_supported: [...algorithms],
    }),
  };
}

async function newKey(kid?: string): Promise<{ key: ClientAssertionKey; publicKey: CryptoKey }> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  return {
    key: await importClientAssertionKey(
      await exportPKCS8(privateKey),
      kid === undefined ? {} : { keyId: kid },
    ),
    publicKey,
  };
}

/** Verifies a token request's assertion as a server would, and returns its claims. */
async function verifiedAssertion(
  request: TokenRequestRecord | undefined,
  key: CryptoKey | JWTVerifyGetKey,
  clientId: string,
  issuer: string,
) {
  expect(request?.params.get('client_assertion_type')).toBe(ASSERTION_TYPE);
  expect(request?.authorization).toBeUndefined();
  expect(request?.params.has('client_secret')).toBe(false);
  const { payload } = await jwtVerify(request?.params.get('client_assertion') ?? '', key as CryptoKey, {
    issuer: clientId,
    subject: clientId,
    audience: issuer,
    algorithms: ['ES256'],
    requiredClaims: ['jti', 'exp'],
  });
  return payload;
}

describe('private_key_jwt client authentication over HTTP', () => {
  const servers: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });

  async function stack(options: FakeAuthorizationServerOptions) {
    const as = await FakeAuthorizationServer.start(options);
    const rs = await FakeResourceServer.start({ authorizationServers: () => [as] });
    servers.push(as, rs);
    return { as, rs };
  }

  it('a pre-registered client signs the code redemption and the refresh, each with a fresh jti', async () => {
    const { as, rs } = await stack(acceptingPrivateKeyJwt());
    const { key, publicKey } = await newKey('k1');
    const { fetch } = clientFor(rs, { clientCredentials: { clientId: 'machine-1', privateKey: key } });

    expect((await fetch(rs.url, rpc('tools/list'))).status).toBe(200);
    as.expireAccessTokens();
    expect((await fetch(rs.url, rpc('tools/list'))).status).toBe(200);

    expect(as.registrations).toHaveLength(0);
    expect(as.authorizationRequests[0]?.get('client_id')).toBe('machine-1');
    const code = await verifiedAssertion(
      as.grants('authorization_code')[0],
      publicKey,
      'machine-1',
      as.issuer,
    );
    const refresh = await verifiedAssertion(as.grants('refresh_token')[0], publicKey, 'machine-1', as.issuer);
    expect(code.jti).not.toBe(refresh.jti);
    expect(as.tokenRequests).toHaveLength(2);
  });

  it('registers dynamically with private_key_jwt and the public jwks, authenticates with it, and re-uses the registration only with that key', async () => {
    const { as, rs } = await stack(acceptingPrivateKeyJwt());
    const { key } = await newKey();
    const store = new MemoryTokenStore();
    const first = clientFor(rs, { store, clientRegistration: { clientName: 'Keyed', privateKey: key } });

    expect((await first.fetch(rs.url, rpc('tools/list'))).status).toBe(200);
    const [registration] = as.registrations;
    expect(registration).toMatchObject({
      client_name: 'Keyed',
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: { keys: [{ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' }] },
    });
    const published = (registration?.['jwks'] as JSONWebKeySet).keys[0];
    expect(published).not.toHaveProperty('d');
    const clientId = as.authorizationRequests[0]?.get('client_id') as string;
    await verifiedAssertion(
      as.grants('authorization_code')[0],
      createLocalJWKSet(registration?.['jwks'] as JSONWebKeySet),
      clientId,
      as.issuer,
    );
    expect(await store.getClient(as.issuer)).toMatchObject({
      tokenEndpointAuthMethod: 'private_key_jwt',
      keyThumbprint: key.thumbprint,
    });
    expect(JSON.stringify(await store.getClient(as.issuer))).not.toContain('"d"');

    // The same key: the registration is re-used. Without the key: a new (public) registration.
    await store.deleteTokens({});
    await clientFor(rs, { store, clientRegistration: { privateKey: key } }).fetch(rs.url, rpc('tools/list'));
    expect(as.registrations).toHaveLength(1);
    await store.deleteTokens({});
    await clientFor(rs, { store }).fetch(rs.url, rpc('tools/list'));
    expect(as.registrations).toHaveLength(2);
    expect(as.registrations[1]).toMatchObject({ token_endpoint_auth_method: 'none' });
    expect(as.registrations[1]).not.toHaveProperty('jwks');
  });

  it.each<[string, FakeAuthorizationServerOptions]>([
    ['does not list private_key_jwt', {}],
    ['does not list the key algorithm', acceptingPrivateKeyJwt(['RS256', 'PS256'])],
  ])(
    'stops with client_auth_unsupported, before any authorization or token request, when the server %s',
    async (_, options) => {
      const { as, rs } = await stack(options);
      const { key } = await newKey();
      const preRegistered = clientFor(rs, { clientCredentials: { clientId: 'machine-2', privateKey: key } });
      const registering = clientFor(rs, { clientRegistration: { privateKey: key } });

      for (const { fetch } of [preRegistered, registering]) {
        let error: unknown;
        try {
          await fetch(rs.url, rpc('tools/list'));
        } catch (thrown) {
          error = thrown;
        }
        expect(findPortcullisError(error)?.code).toBe('client_auth_unsupported');
      }
      expect(as.registrations).toHaveLength(0);
      expect(as.authorizationRequests).toHaveLength(0);
      expect(as.tokenRequests).toHaveLength(0);
    },
  );
});
