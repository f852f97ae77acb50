/**
 * The private key a client signs its `private_key_jwt` client assertions with, and the public key it registers.
 *
 * Rules kept here:
 * - RFC 7523 Section 3 and RFC 8725 Section 3.2: only asymmetric algorithms (ES256, ES384, RS256, PS256, EdDSA);
 *   the algorithm follows from the key (EC curve, OKP Ed25519), RSA keys sign RS256 unless the key's JWK `alg` or
 *   the caller says PS256.
 * - RFC 7518 Section 3.3: RSA keys have at least 2048 bits.
 * - RFC 7591 Section 2 (`jwks`): what is registered or published is the public key only (no `d`, `p`, `q`, `dp`,
 *   `dq`, `qi`, `oth`, RFC 7518 Section 6), with `kid`, `alg` and `use: sig`.
 * - The private key is imported as a non-extractable `CryptoKey`; no error message, progress event or log line
 *   ever carries key material.
 */
import { createPrivateKey, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, importJWK, type CryptoKey, type JWK } from 'jose';

/**
 * The JWS algorithms a client assertion is signed with.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7518#section-3.1
 * @see https://www.rfc-editor.org/rfc/rfc8037#section-3.1
 */
export const CLIENT_ASSERTION_ALGORITHMS = ['ES256', 'ES384', 'RS256', 'PS256', 'EdDSA'] as const;

/**
 * One of {@link CLIENT_ASSERTION_ALGORITHMS}.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7518#section-3.1
 */
export type ClientAssertionAlgorithm = (typeof CLIENT_ASSERTION_ALGORITHMS)[number];

/**
 * A client's signing key, ready to sign assertions: made by {@link importClientAssertionKey}.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7523#section-2.2
 */
export interface ClientAssertionKey {
  /** The JWS `alg` of every assertion signed with this key. */
  readonly algorithm: ClientAssertionAlgorithm;
  /** The JWS `kid` of every assertion, when one was given (or the JWK had one). */
  readonly keyId: string | undefined;
  /** The public key as a JWK (`kty`, the public members, `alg`, `use: sig`, `kid` when set), for `jwks`. */
  readonly publicJwk: Readonly<JWK & { kty: string }>;
  /** The RFC 7638 SHA-256 thumbprint of the public key: which key a registration was made with. */
  readonly thumbprint: string;
  /** The private key, not extractable. */
  readonly privateKey: CryptoKey;
}

/**
 * Options of {@link importClientAssertionKey}.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7515#section-4.1.4
 */
export interface ClientAssertionKeyOptions {
  /** The `kid` header of the assertions (default: the JWK's `kid`, else none). */
  readonly keyId?: string;
  /** The algorithm, when the key allows more than one (RSA: RS256 or PS256). It must fit the key. */
  readonly algorithm?: ClientAssertionAlgorithm;
}

/** A key that cannot be used to sign client assertions; the message names no key material. */
export class ClientAssertionKeyError extends Error {
  override readonly name = 'ClientAssertionKeyError';
}

const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'] as const;
const MIN_RSA_BITS = 2048;

/**
 * Imports a private key, given as PEM (PKCS#8 `BEGIN PRIVATE KEY`; SEC1 and PKCS#1 PEM are read too), as a private
 * JWK object, or as the JSON text of one. Throws {@link ClientAssertionKeyError} for anything else: a public key, an
 * encrypted PEM, an unsupported key type or curve, an RSA key under 2048 bits, an algorithm that does not fit.
 *
 * @see https://www.rfc-editor.org/rfc/rfc5208#section-5
 * @see https://www.rfc-editor.org/rfc/rfc7517#section-4
 */
export async function importClientAssertionKey(
  key: string | JWK,
  options: ClientAssertionKeyOptions = {},
): Promise<ClientAssertionKey> {
  const jwk = privateJwk(key);
  const algorithm = algorithmFor(jwk, options.algorithm);
  const keyId = options.keyId ?? (typeof jwk.kid === 'string' && jwk.kid !== '' ? jwk.kid : undefined);
  const publicMembers = Object.fromEntries(
    Object.entries(jwk).filter(
      ([name]) =>
        !(PRIVATE_MEMBERS as readonly string[]).includes(name) &&
        !['alg', 'kid', 'use', 'key_ops', 'ext'].includes(name),
    ),
  ) as JWK & { kty: string };
  let privateKey: CryptoKey;
  try {
    const imported = await importJWK({ ...jwk, alg: algorithm, ext: false }, algorithm, {
      extractable: false,
    });
    if (imported instanceof Uint8Array) throw new ClientAssertionKeyError('not an asymmetric key');
    privateKey = imported;
  } catch (error) {
    if (error instanceof ClientAssertionKeyError) throw error;
    throw new ClientAssertionKeyError(`the key cannot be used for ${algorithm}`);
  }
  return {
    algorithm,
    keyId,
    publicJwk: Object.freeze({
      ...publicMembers,
      ...(keyId === undefined ? {} : { kid: keyId }),
      alg: algorithm,
      use: 'sig',
    }),
    thumbprint: await calculateJwkThumbprint(publicMembers, 'sha256'),
    privateKey,
  };
}

function privateJwk(key: string | JWK): JWK {
  if (typeof key !== 'string') return checkedPrivateJwk(key);
  const text = key.trim();
  if (text.startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new ClientAssertionKeyError('not a PEM private key nor a JSON Web Key (invalid JSON)');
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw new ClientAssertionKeyError('not a JSON Web Key (not a JSON object)');
    return checkedPrivateJwk(parsed as JWK);
  }
  if (!text.startsWith('-----BEGIN ')) {
    throw new ClientAssertionKeyError(
      'not a PEM private key (-----BEGIN PRIVATE KEY-----) nor a JSON Web Key',
    );
  }
  if (text.startsWith('-----BEGIN ENCRYPTED PRIVATE KEY-----') || /Proc-Type:\s*4,ENCRYPTED/.test(text)) {
    throw new ClientAssertionKeyError('the PEM private key is encrypted; give it unencrypted');
  }
  if (/^-----BEGIN (?:RSA )?PUBLIC KEY-----|^-----BEGIN CERTIFICATE-----/.test(text)) {
    throw new ClientAssertionKeyError('a public key or certificate, not a private key');
  }
  let keyObject: KeyObject;
  try {
    keyObject = createPrivateKey({ key: text, format: 'pem' });
  } catch {
    throw new ClientAssertionKeyError('not a readable PEM private key');
  }
  if (keyObject.asymmetricKeyType === 'rsa-pss') {
    throw new ClientAssertionKeyError(
      'an RSASSA-PSS-only PKCS#8 key; give the RSA key as rsaEncryption PKCS#8',
    );
  }
  try {
    return checkedPrivateJwk(keyObject.export({ format: 'jwk' }) as JWK);
  } catch (error) {
    if (error instanceof ClientAssertionKeyError) throw error;
    throw new ClientAssertionKeyError(`unsupported key type ${keyObject.asymmetricKeyType ?? 'unknown'}`);
  }
}

function checkedPrivateJwk(jwk: JWK): JWK {
  if (typeof jwk.kty !== 'string') throw new ClientAssertionKeyError('not a JSON Web Key (no kty)');
  if (jwk.kty === 'oct')
    throw new ClientAssertionKeyError('a symmetric key; private_key_jwt needs a private key');
  if (typeof jwk.d !== 'string' || jwk.d === '')
    throw new ClientAssertionKeyError('a public key, not a private key (no "d")');
  return jwk;
}

function algorithmFor(jwk: JWK, requested: ClientAssertionAlgorithm | undefined): ClientAssertionAlgorithm {
  const fromJwk = typeof jwk.alg === 'string' ? jwk.alg : undefined;
  const fits = (candidates: readonly ClientAssertionAlgorithm[]): ClientAssertionAlgorithm => {
    for (const wanted of [requested, fromJwk]) {
      if (wanted === undefined) continue;
      if (!(candidates as readonly string[]).includes(wanted)) {
        throw new ClientAssertionKeyError(
          `algorithm ${wanted} does not fit this ${describeKey(jwk)} key (it signs ${candidates.join(' or ')})`,
        );
      }
      return wanted as ClientAssertionAlgorithm;
    }
    return candidates[0] as ClientAssertionAlgorithm;
  };
  switch (jwk.kty) {
    case 'EC':
      if (jwk.crv === 'P-256') return fits(['ES256']);
      if (jwk.crv === 'P-384') return fits(['ES384']);
      break;
    case 'OKP':
      if (jwk.crv === 'Ed25519') return fits(['EdDSA']);
      break;
    case 'RSA': {
      const bits = typeof jwk.n === 'string' ? modulusBits(jwk.n) : 0;
      if (bits < MIN_RSA_BITS)
        throw new ClientAssertionKeyError(`an RSA key of ${bits} bits; at least ${MIN_RSA_BITS} are needed`);
      return fits(['RS256', 'PS256']);
    }
  }
  throw new ClientAssertionKeyError(
    `unsupported key type ${describeKey(jwk)} (supported: EC P-256, EC P-384, RSA, Ed25519)`,
  );
}

function describeKey(jwk: JWK): string {
  return typeof jwk.crv === 'string' ? `${jwk.kty} ${jwk.crv}` : String(jwk.kty);
}

function modulusBits(n: string): number {
  const bytes = Buffer.from(n, 'base64url');
  let start = 0;
  while (start < bytes.length && bytes[start] === 0) start += 1;
  if (start === bytes.length) return 0;
  return (bytes.length - start) * 8 - Math.clz32(bytes[start] as number) + 24;
}
