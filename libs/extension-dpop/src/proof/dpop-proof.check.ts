/**
 * Checking a DPoP proof JWT, the same way at the token endpoint and at a resource.
 *
 * Rules kept here (RFC 9449 section 4.3, "Checking DPoP Proofs"), in its order:
 * 1. exactly one `DPoP` header field (item 1);
 * 2. a well-formed JWT (item 2) whose claims are all present: `jti`, `htm`, `htu`, `iat` (item 3; section 4.2);
 * 3. `typ` is `dpop+jwt` (item 4);
 * 4. `alg` is asymmetric, one this server accepts, never `none` or an HMAC (item 5; RFC 8725 section 3.1);
 * 5. the signature verifies with the public key in the `jwk` header (item 6), which holds no private key member
 *    (item 7);
 * 6. `htm` is the request's method (item 8); `htu` is the request's URI without query and fragment, after
 *    RFC 3986 section 6.2.2 and 6.2.3 normalisation (item 9);
 * 7. the server's nonce, when it asks for one (item 10; sections 8 and 9);
 * 8. `iat` within an acceptable window (item 11; section 11.1);
 * 9. at a resource, `ath` is the hash of the access token presented and the proof's key is the one the token
 *    is bound to (item 12; section 7.1);
 * 10. the `jti` was not seen before within the window (section 11.1), checked last so that a refused proof
 *     never consumes its `jti`.
 * Every refusal is `invalid_dpop_proof`, but a missing or stale nonce, which is `use_dpop_nonce` with a fresh one
 * in the `DPoP-Nonce` header.
 */
import { OAuthError } from '@portcullis/protocol';
import { calculateJwkThumbprint, decodeProtectedHeader, importJWK, jwtVerify, type JWK } from 'jose';
import { createHash } from 'node:crypto';
import type { DpopNonces } from './dpop-nonce.js';

/** The JOSE `typ` of a DPoP proof (RFC 9449 section 4.2). */
export const DPOP_PROOF_TYPE = 'dpop+jwt';

/** The request header a proof travels in and the response header a nonce does (RFC 9449 sections 4.1 and 8). */
export const DPOP_HEADER = 'DPoP';
export const DPOP_NONCE_HEADER = 'DPoP-Nonce';

/** JWK members that only a private key has (RFC 7518 section 6; RFC 8037 section 2). */
const PRIVATE_JWK_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

/** The longest proof looked at; a real one is well under 1 KiB (an RSA-4096 `jwk` and signature included). */
const MAX_PROOF_LENGTH = 4096;

/** The longest `jti` kept. RFC 9449 section 4.2 asks for 96 bits of randomness; a UUID is 36 characters. */
const MAX_JTI_LENGTH = 128;

/**
 * How many proof keys stay imported. A client signs every proof of an authorization with one key, so importing
 * it and computing its thumbprint once, rather than per request, is most of the cost of a check; a flood of
 * one-off keys only cycles this bounded cache.
 */
const KEY_CACHE_SIZE = 1024;

interface ProofKey {
  readonly key: Awaited<ReturnType<typeof importJWK>>;
  /** Its JWK SHA-256 thumbprint (RFC 7638). */
  readonly jkt: string;
}

// By `alg` and the `jwk` header exactly as sent (every member, so one spelling never stands in for another).
const proofKeys = new Map<string, Promise<ProofKey>>();

function proofKey(jwk: JWK, alg: string): Promise<ProofKey> {
  const id = `${alg}.${JSON.stringify(jwk)}`;
  let entry = proofKeys.get(id);
  if (entry !== undefined) {
    proofKeys.delete(id);
  } else {
    entry = (async () => ({
      key: await importJWK(jwk, alg),
      jkt: await calculateJwkThumbprint(jwk, 'sha256'),
    }))();
    entry.catch(() => proofKeys.delete(id));
    if (proofKeys.size >= KEY_CACHE_SIZE) proofKeys.delete(proofKeys.keys().next().value as string);
  }
  proofKeys.set(id, entry);
  return entry;
}

/** What the proof is checked against. */
export interface ProofExpectation {
  /** The request's method. */
  readonly method: string;
  /** The absolute URI the request was sent to (query and fragment are ignored). */
  readonly url: string;
  /** Accepted `alg` values, all asymmetric. */
  readonly algorithms: readonly string[];
  /** How far `iat` may be from now, in seconds, either way. */
  readonly maxAgeSeconds: number;
  /** At a resource: the access token the request carries, for `ath`. */
  readonly accessToken?: string;
  /** At a resource: the `cnf.jkt` of that token; the proof must be signed by that key (RFC 9449 section 7.1). */
  readonly boundTo?: string;
  /** The server's nonces, when it requires one. */
  readonly nonces?: DpopNonces;
  /** Records the `jti` as used until the given time; false when it was used before. */
  readonly useOnce: (jti: string, expiresAt: Date) => Promise<boolean>;
  /** The clock, in seconds since the epoch (tests). */
  readonly now?: () => number;
}

/** A proof that passed every check. */
export interface VerifiedProof {
  /** The JWK SHA-256 thumbprint of the proof's key (RFC 7638), the `cnf.jkt` of a bound token. */
  readonly jkt: string;
  readonly jti: string;
  readonly iat: number;
}

function refuse(description: string): OAuthError {
  return new OAuthError('invalid_dpop_proof', description);
}

/**
 * The request URI as RFC 9449 compares it: scheme and host lower case, default port dropped, dot segments
 * removed, no query, no fragment (RFC 3986 sections 6.2.2 and 6.2.3, as WHATWG URL parsing does them).
 *
 * @see https://www.rfc-editor.org/rfc/rfc9449#section-4.3
 */
export function htuOf(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return undefined;
  }
}

/** The `ath` of an access token: base64url of its SHA-256 (RFC 9449 section 4.2). */
export function accessTokenHash(accessToken: string): string {
  return createHash('sha256').update(accessToken, 'ascii').digest('base64url');
}

/**
 * Checks the proof header values of one request and returns the proof's key thumbprint.
 *
 * @throws OAuthError `invalid_dpop_proof`, or `use_dpop_nonce` with a `DPoP-Nonce` header.
 * @see https://www.rfc-editor.org/rfc/rfc9449#section-4.3
 */
export async function verifyDpopProof(
  headerValues: readonly string[],
  expected: ProofExpectation,
): Promise<VerifiedProof> {
  const [only, ...others] = headerValues;
  if (only === undefined || others.length > 0) throw refuse('The request must carry exactly one DPoP proof.');
  const proof = only.trim();
  if (proof.length === 0 || proof.length > MAX_PROOF_LENGTH || proof.includes(',')) {
    throw refuse('The DPoP proof is not one JWT.');
  }

  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(proof);
  } catch {
    throw refuse('The DPoP proof is not a well-formed JWT.');
  }
  if (header.typ !== DPOP_PROOF_TYPE) throw refuse(`The DPoP proof's typ must be ${DPOP_PROOF_TYPE}.`);
  const { alg } = header;
  if (typeof alg !== 'string' || !expected.algorithms.includes(alg)) {
    throw refuse(`The DPoP proof's alg must be one of ${expected.algorithms.join(', ')}.`);
  }
  const jwk = header.jwk as JWK | undefined;
  if (typeof jwk !== 'object' || jwk === null || Array.isArray(jwk)) {
    throw refuse('The DPoP proof must carry its public key in the jwk header.');
  }
  if (PRIVATE_JWK_MEMBERS.some((member) => Object.hasOwn(jwk, member))) {
    throw refuse('The DPoP proof jwk must be a public key.');
  }

  let payload: Record<string, unknown>;
  let jkt: string;
  try {
    const imported = await proofKey(jwk, alg);
    const { key } = imported;
    jkt = imported.jkt;
    if (!('type' in key) || key.type !== 'public') throw new Error('not a public key');
    ({ payload } = await jwtVerify(proof, key, {
      algorithms: [...expected.algorithms],
      typ: DPOP_PROOF_TYPE,
    }));
  } catch {
    throw refuse('The DPoP proof signature does not verify with its jwk.');
  }

  const { jti, htm, htu, iat } = payload;
  if (typeof jti !== 'string' || jti.length === 0 || jti.length > MAX_JTI_LENGTH) {
    throw refuse('The DPoP proof needs a jti.');
  }
  if (htm !== expected.method) throw refuse(`The DPoP proof's htm must be ${expected.method}.`);
  if (typeof htu !== 'string' || htu.includes('?') || htu.includes('#')) {
    throw refuse('The DPoP proof needs an htu without query or fragment.');
  }
  const wanted = htuOf(expected.url);
  if (wanted === undefined || htuOf(htu) !== wanted) throw refuse(`The DPoP proof's htu must be ${wanted}.`);

  if (expected.nonces !== undefined) {
    const { nonce } = payload;
    if (typeof nonce !== 'string' || !expected.nonces.isValid(nonce)) {
      throw new OAuthError('use_dpop_nonce', 'The DPoP proof must carry the server nonce.', {
        headers: { [DPOP_NONCE_HEADER]: expected.nonces.current() },
      });
    }
  }

  const now = expected.now?.() ?? Math.floor(Date.now() / 1000);
  if (typeof iat !== 'number' || !Number.isFinite(iat) || Math.abs(now - iat) > expected.maxAgeSeconds) {
    throw refuse('The DPoP proof is too old or from the future.');
  }

  if (expected.accessToken !== undefined) {
    if (payload.ath !== accessTokenHash(expected.accessToken)) {
      throw refuse('The DPoP proof ath does not match the access token.');
    }
  }

  if (expected.boundTo !== undefined && jkt !== expected.boundTo) {
    throw refuse('The DPoP proof is not signed by the key the access token is bound to.');
  }
  // Kept until the proof could no longer pass the iat check, whichever side of now iat is.
  const expiresAt = new Date((Math.max(now, iat) + expected.maxAgeSeconds + 1) * 1000);
  if (!(await expected.useOnce(`${jkt}:${jti}`, expiresAt))) throw refuse('The DPoP proof was used before.');
  return { jkt, jti, iat };
}
