/**
 * The client side of DPoP: one key pair per authorization and a fresh proof per request.
 *
 * Rules kept here:
 * - RFC 9449 section 4.2: the proof's header has `typ` `dpop+jwt`, an asymmetric `alg` and the public `jwk`; its
 *   claims are a unique `jti`, `htm`, `htu` (the request URI without query and fragment) and `iat`; `ath` when the
 *   request carries an access token; `nonce` when the server gave one (sections 8 and 9).
 * - RFC 9449 section 5.1: the algorithm is one the authorization server lists in
 *   `dpop_signing_alg_values_supported`; a server that lists none offers no DPoP. Where the resource lists
 *   algorithms too (RFC 9728 section 2), the first of the client's preference that both list is chosen.
 * - RFC 9728 section 2: a resource advertises DPoP with a non-empty `dpop_signing_alg_values_supported` or with
 *   `dpop_bound_access_tokens_required: true` in its protected resource metadata.
 * - The private key never appears in a proof: the `jwk` header is built from the public members only.
 */
import type { ClientProofOfPossession, JsonObject } from '@portcullis/extensions';
import { exportJWK, generateKeyPair, importJWK, SignJWT, type JWK } from 'jose';
import { randomUUID } from 'node:crypto';
import { DPOP_SCHEME } from '../constants.js';
import {
  accessTokenHash,
  DPOP_HEADER,
  DPOP_NONCE_HEADER,
  DPOP_PROOF_TYPE,
  htuOf,
} from '../proof/dpop-proof.check.js';

/** The client's DPoP settings. */
export interface DpopClientOptions {
  /** The algorithms the client will use, most preferred first. Default ES256, then EdDSA, ES384, PS256, RS256. */
  readonly algorithms?: readonly string[];
}

const PREFERENCE = ['ES256', 'EdDSA', 'ES384', 'ES512', 'PS256', 'RS256'];

/** The public members of each key type (RFC 7518 section 6; RFC 8037 section 2). */
const PUBLIC_MEMBERS: Readonly<Record<string, readonly string[]>> = {
  EC: ['kty', 'crv', 'x', 'y'],
  OKP: ['kty', 'crv', 'x'],
  RSA: ['kty', 'n', 'e'],
};

function publicJwk(key: JsonObject): JWK {
  const members = PUBLIC_MEMBERS[String(key['kty'])];
  if (!members) throw new TypeError(`not a DPoP key type: ${String(key['kty'])}`);
  return Object.fromEntries(members.map((name) => [name, key[name]])) as JWK;
}

/** `dpop_signing_alg_values_supported` of a metadata document (RFC 9449 section 5.1, RFC 9728 section 2). */
function algorithmsOf(metadata: Readonly<Record<string, unknown>>): readonly unknown[] | undefined {
  const listed = metadata['dpop_signing_alg_values_supported'];
  return Array.isArray(listed) ? listed : undefined;
}

/**
 * The client hooks of DPoP.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9449#section-4
 */
export function dpopClient(options: DpopClientOptions = {}): ClientProofOfPossession {
  const preference = options.algorithms ?? PREFERENCE;
  return {
    scheme: DPOP_SCHEME,
    header: DPOP_HEADER,
    nonceHeader: DPOP_NONCE_HEADER,
    nonceErrorCode: 'use_dpop_nonce',
    proofErrorCode: 'invalid_dpop_proof',
    algorithmFor(metadata, resourceMetadata) {
      const offered = algorithmsOf(metadata);
      if (offered === undefined) return undefined;
      const usable = preference.filter((alg) => offered.includes(alg));
      const accepted = resourceMetadata === undefined ? undefined : algorithmsOf(resourceMetadata);
      return usable.find((alg) => accepted?.includes(alg) === true) ?? usable[0];
    },
    advertisedBy(resourceMetadata) {
      return (
        (algorithmsOf(resourceMetadata)?.length ?? 0) > 0 ||
        resourceMetadata['dpop_bound_access_tokens_required'] === true
      );
    },
    async generateKey(algorithm) {
      const { privateKey } = await generateKeyPair(algorithm, { extractable: true });
      return { ...(await exportJWK(privateKey)), alg: algorithm } as JsonObject;
    },
    async proof(key, request) {
      const alg = key['alg'];
      if (typeof alg !== 'string') throw new TypeError('a DPoP key needs its alg');
      const htu = htuOf(request.url);
      if (htu === undefined) throw new TypeError(`not an absolute URL: ${request.url}`);
      const privateKey = await importJWK(key as JWK, alg);
      return new SignJWT({
        htm: request.method.toUpperCase(),
        htu,
        ...(request.accessToken !== undefined ? { ath: accessTokenHash(request.accessToken) } : {}),
        ...(request.nonce !== undefined ? { nonce: request.nonce } : {}),
      })
        .setProtectedHeader({ alg, typ: DPOP_PROOF_TYPE, jwk: publicJwk(key) })
        .setJti(randomUUID())
        .setIssuedAt()
        .sign(privateKey);
    },
  };
}
