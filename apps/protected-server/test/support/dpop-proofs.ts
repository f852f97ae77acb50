/**
 * DPoP proofs (RFC 9449 Section 4.2) made the way a client makes them, with every part a test may want wrong.
 */
import { createHash, randomUUID } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';

export interface DpopKey {
  readonly privateKey: CryptoKey;
  readonly publicJwk: JWK;
  /** The JWK SHA-256 thumbprint (RFC 7638): the `cnf.jkt` of a token bound to this key. */
  readonly jkt: string;
}

export async function createDpopKey(): Promise<DpopKey> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const publicJwk = await exportJWK(publicKey);
  return { privateKey, publicJwk, jkt: await calculateJwkThumbprint(publicJwk, 'sha256') };
}

/** `ath`: base64url of the SHA-256 of the access token. */
export function ath(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

export interface ProofOptions {
  readonly method: string;
  /** The URL the proof names (`htu`); query and fragment are stripped as a client would. */
  readonly url: string;
  /** The access token, for `ath`. */
  readonly token?: string;
  readonly nonce?: string;
  /** Claims to add or replace (`undefined` removes one). */
  readonly claims?: Record<string, unknown>;
  /** Header members to add or replace. */
  readonly header?: Record<string, unknown>;
}

/** A proof signed by `key`, for one request. */
export function dpopProof(key: DpopKey, options: ProofOptions): Promise<string> {
  const htu = new URL(options.url);
  htu.search = '';
  htu.hash = '';
  const claims: Record<string, unknown> = {
    jti: randomUUID(),
    htm: options.method,
    htu: htu.href,
    iat: Math.floor(Date.now() / 1000),
    ...(options.token !== undefined ? { ath: ath(options.token) } : {}),
    ...(options.nonce !== undefined ? { nonce: options.nonce } : {}),
    ...options.claims,
  };
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: key.publicJwk, ...options.header })
    .sign(key.privateKey);
}

/** An unsecured proof (`alg: none`, RFC 7519 Section 6) naming `key`'s public JWK. */
export function unsecuredProof(key: DpopKey, options: ProofOptions): string {
  const htu = new URL(options.url);
  htu.search = '';
  return `${b64url({ alg: 'none', typ: 'dpop+jwt', jwk: key.publicJwk })}.${b64url({
    jti: randomUUID(),
    htm: options.method,
    htu: htu.href,
    iat: Math.floor(Date.now() / 1000),
    ...(options.token !== undefined ? { ath: ath(options.token) } : {}),
  })}.`;
}

/** A proof MACed with HS256 under `secret`, naming `key`'s public JWK: a symmetric algorithm, never accepted. */
export function hmacProof(key: DpopKey, secret: Uint8Array, options: ProofOptions): Promise<string> {
  const htu = new URL(options.url);
  htu.search = '';
  return new SignJWT({
    jti: randomUUID(),
    htm: options.method,
    htu: htu.href,
    iat: Math.floor(Date.now() / 1000),
    ...(options.token !== undefined ? { ath: ath(options.token) } : {}),
  })
    .setProtectedHeader({ alg: 'HS256', typ: 'dpop+jwt', jwk: key.publicJwk })
    .sign(secret);
}
