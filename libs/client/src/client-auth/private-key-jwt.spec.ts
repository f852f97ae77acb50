import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import {
  decodeProtectedHeader,
  exportJWK,
  exportPKCS8,
  generateKeyPair,
  importJWK,
  jwtVerify,
  type CryptoKey,
  type JWK,
} from 'jose';
import type { AuthorizationServerMetadata } from '@portcullis/metadata';
import { isPortcullisError } from '../errors/portcullis-error.js';
import {
  ClientAssertionKeyError,
  importClientAssertionKey,
  type ClientAssertionAlgorithm,
  type ClientAssertionKey,
} from './client-assertion-key.js';
import {
  CLIENT_ASSERTION_LIFETIME_SECONDS,
  JWT_BEARER_CLIENT_ASSERTION_TYPE,
  assertPrivateKeyJwtSupported,
  privateKeyJwt,
} from './private-key-jwt.js';

const ISSUER = 'https://as.example/tenant';
const CLIENT_ID = 'pkj-client';

function server(metadata: Partial<AuthorizationServerMetadata> = {}) {
  return {
    issuer: ISSUER,
    metadata: {
      issuer: ISSUER,
      response_types_supported: ['code'],
      token_endpoint: `${ISSUER}/token`,
      token_endpoint_auth_methods_supported: ['none', 'private_key_jwt'],
      ...metadata,
    } as AuthorizationServerMetadata,
  };
}

async function keyPair(alg: string): Promise<{ pem: string; publicKey: CryptoKey; privateJwk: JWK }> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { pem: await exportPKCS8(privateKey), publicKey, privateJwk: await exportJWK(privateKey) };
}

/** Runs the client authentication as openid-client does for one token request, and returns what it sent. */
async function authenticate(
  key: ClientAssertionKey,
  metadata: Partial<AuthorizationServerMetadata> = {},
): Promise<{ body: URLSearchParams; headers: Headers }> {
  const body = new URLSearchParams({ grant_type: 'authorization_code' });
  const headers = new Headers();
  await privateKeyJwt(server(metadata), key)({ issuer: ISSUER }, { client_id: CLIENT_ID }, body, headers);
  return { body, headers };
}

describe('private_key_jwt client assertions (RFC 7523 2.2 and 3, RFC 7521 4.2)', () => {
  it('sends a JWT that verifies with the public key: iss = sub = client_id, aud = the issuer, exp 60 s after iat', async () => {
    const { pem, publicKey } = await keyPair('ES256');
    const key = await importClientAssertionKey(pem, { keyId: 'key-1' });
    const before = Math.floor(Date.now() / 1000);
    const { body, headers } = await authenticate(key);
    const after = Math.floor(Date.now() / 1000);

    expect(body.get('client_assertion_type')).toBe(JWT_BEARER_CLIENT_ASSERTION_TYPE);
    expect(body.get('client_id')).toBe(CLIENT_ID);
    expect(body.get('client_secret')).toBeNull();
    expect(headers.get('authorization')).toBeNull();
    const assertion = body.get('client_assertion') as string;
    const { payload, protectedHeader } = await jwtVerify(assertion, publicKey, {
      issuer: CLIENT_ID,
      subject: CLIENT_ID,
      audience: ISSUER,
      algorithms: ['ES256'],
      requiredClaims: ['exp', 'iat', 'jti'],
    });
    expect(protectedHeader).toEqual({ alg: 'ES256', kid: 'key-1' });
    expect(payload.aud).toBe(ISSUER);
    expect(payload.iat).toBeGreaterThanOrEqual(before);
    expect(payload.iat).toBeLessThanOrEqual(after);
    expect((payload.exp as number) - (payload.iat as number)).toBe(CLIENT_ASSERTION_LIFETIME_SECONDS);
    expect(CLIENT_ASSERTION_LIFETIME_SECONDS).toBeLessThanOrEqual(300);
    expect(typeof payload.jti).toBe('string');
    expect((payload.jti as string).length).toBeGreaterThanOrEqual(16);
  });

  it('signs a fresh assertion with a new jti for every request', async () => {
    const key = await importClientAssertionKey((await keyPair('ES256')).pem);
    const assertions = await Promise.all([1, 2, 3].map(async () => (await authenticate(key)).body));
    const jtis = await Promise.all(
      assertions.map(async (body) => {
        const [, payload] = (body.get('client_assertion') as string).split('.');
        return (JSON.parse(Buffer.from(payload as string, 'base64url').toString('utf8')) as { jti: string })
          .jti;
      }),
    );
    expect(new Set(jtis).size).toBe(3);
    expect(new Set(assertions.map((body) => body.get('client_assertion'))).size).toBe(3);
  });

  it.each<[string, ClientAssertionAlgorithm]>([
    ['ES256', 'ES256'],
    ['ES384', 'ES384'],
    ['RS256', 'RS256'],
    ['PS256', 'PS256'],
    ['EdDSA', 'EdDSA'],
  ])(
    'takes the algorithm from the key (%s), in the header, and the signature verifies',
    async (generated, alg) => {
      const { privateJwk, publicKey } = await keyPair(generated);
      // PS256 cannot be told from an RSA key: the JWK's alg says so.
      const key = await importClientAssertionKey(
        generated === 'PS256' ? { ...privateJwk, alg: 'PS256' } : privateJwk,
      );
      expect(key.algorithm).toBe(alg);
      const assertion = (await authenticate(key)).body.get('client_assertion') as string;
      expect(decodeProtectedHeader(assertion)).toEqual({ alg });
      await expect(
        jwtVerify(assertion, publicKey, { algorithms: [alg], audience: ISSUER }),
      ).resolves.toBeDefined();
    },
  );

  it('publishes only the public key, with kid, alg and use, and its thumbprint', async () => {
    const { privateJwk, publicKey } = await keyPair('ES256');
    const key = await importClientAssertionKey(JSON.stringify({ ...privateJwk, kid: 'from-jwk' }));
    expect(key.keyId).toBe('from-jwk');
    expect(key.publicJwk).toEqual({
      ...(await exportJWK(publicKey)),
      kid: 'from-jwk',
      alg: 'ES256',
      use: 'sig',
    });
    expect(key.publicJwk).not.toHaveProperty('d');
    expect(key.thumbprint).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // The published key verifies what the private key signs.
    const assertion = (await authenticate(key)).body.get('client_assertion') as string;
    await expect(jwtVerify(assertion, await importJWK(key.publicJwk, 'ES256'))).resolves.toBeDefined();
  });

  it('reads a PKCS#1 / SEC1 PEM too, and refuses what cannot sign: a public key, a symmetric key, a small RSA key, a wrong alg', async () => {
    const sec1 = generateKeyPairSync('ec', { namedCurve: 'P-256' })
      .privateKey.export({ format: 'pem', type: 'sec1' })
      .toString();
    expect((await importClientAssertionKey(sec1)).algorithm).toBe('ES256');

    const { publicKey, privateJwk } = await keyPair('ES256');
    const refusals: (string | JWK)[] = [
      await exportJWK(publicKey),
      { kty: 'oct', k: 'c2VjcmV0' },
      'not a key',
      '{"kty":',
      generateKeyPairSync('rsa', { modulusLength: 1024 })
        .privateKey.export({ format: 'pem', type: 'pkcs8' })
        .toString(),
      generateKeyPairSync('ec', { namedCurve: 'secp256k1' }).privateKey.export({ format: 'jwk' }) as JWK,
      generateKeyPairSync('ec', { namedCurve: 'P-256' })
        .publicKey.export({ format: 'pem', type: 'spki' })
        .toString(),
    ];
    for (const refused of refusals) {
      await expect(importClientAssertionKey(refused)).rejects.toBeInstanceOf(ClientAssertionKeyError);
    }
    await expect(importClientAssertionKey(privateJwk, { algorithm: 'RS256' })).rejects.toThrow(
      'algorithm RS256 does not fit this EC P-256 key',
    );
    // No key material in any message.
    const error = await importClientAssertionKey({ ...privateJwk, crv: 'P-521' }).catch(
      (thrown: unknown) => thrown,
    );
    expect(String(error)).not.toContain(privateJwk.d as string);
  });

  it('is refused before anything is signed when the server does not list private_key_jwt or the algorithm', async () => {
    const key = await importClientAssertionKey((await keyPair('ES256')).pem);
    const refusals: Partial<AuthorizationServerMetadata>[] = [
      { token_endpoint_auth_methods_supported: ['client_secret_basic', 'none'] },
      { token_endpoint_auth_methods_supported: undefined },
      { token_endpoint_auth_signing_alg_values_supported: ['RS256', 'PS256'] },
    ];
    for (const metadata of refusals) {
      let error: unknown;
      try {
        privateKeyJwt(server(metadata), key);
      } catch (thrown) {
        error = thrown;
      }
      expect(isPortcullisError(error, 'client_auth_unsupported')).toBe(true);
    }
    expect(() =>
      assertPrivateKeyJwtSupported(
        server({ token_endpoint_auth_signing_alg_values_supported: ['ES256'] }),
        key,
      ),
    ).not.toThrow();
  });

  it('accepts an EdDSA key where the server lists EdDSA or Ed25519', async () => {
    const key = await importClientAssertionKey((await keyPair('EdDSA')).pem);
    for (const listed of ['EdDSA', 'Ed25519']) {
      expect(() =>
        assertPrivateKeyJwtSupported(
          server({ token_endpoint_auth_signing_alg_values_supported: [listed] }),
          key,
        ),
      ).not.toThrow();
    }
  });
});
