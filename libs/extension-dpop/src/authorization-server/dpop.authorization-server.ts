/**
 * The authorization server side of DPoP: the token endpoint's proof check and the code binding of `dpop_jkt`.
 *
 * Rules kept here:
 * - RFC 9449 section 5: a token request may carry one proof; it is checked against the token endpoint URL as
 *   published (`htu`) and `POST` (`htm`), and what is issued is bound to its key (`cnf.jkt`, `token_type` `DPoP`).
 * - RFC 9449 section 5.2: a client registered with `dpop_bound_access_tokens: true` (or every client, when the
 *   operator requires DPoP) must send a proof: `invalid_dpop_proof` otherwise.
 * - RFC 9449 section 8: with nonces on, a proof without the current nonce gets `use_dpop_nonce` and a fresh one.
 * - RFC 9449 section 10: `dpop_jkt` at the authorization endpoint is the base64url SHA-256 thumbprint of a key.
 * - RFC 9449 section 11.1: a proof's `jti` is used once, in the host's store (every instance shares it).
 */
import type { AuthorizationServerProofOfPossession, RegisteredClient } from '@portcullis/extensions';
import { OAuthError } from '@portcullis/protocol';
import { DEFAULT_PROOF_MAX_AGE, DPOP_ALGORITHMS, DPOP_SCHEME } from '../constants.js';
import type { DpopNonces } from '../proof/dpop-nonce.js';
import { DPOP_HEADER, verifyDpopProof } from '../proof/dpop-proof.check.js';

/** The authorization server's DPoP settings. */
export interface DpopAuthorizationServerOptions {
  /** Accepted proof algorithms, published as `dpop_signing_alg_values_supported`. Default: every asymmetric one. */
  readonly algorithms?: readonly string[];
  /** Whether every client must send a proof (RFC 9449 section 5.2 for all). Default false: only clients that ask. */
  readonly required?: boolean;
  /** Server nonces (RFC 9449 section 8); none by default. */
  readonly nonces?: DpopNonces;
  /** How far `iat` may be from now, in seconds. Default 60. */
  readonly maxAgeSeconds?: number;
}

/** A JWK SHA-256 thumbprint: 32 bytes in base64url (RFC 7638, RFC 9449 section 10). */
const JKT = /^[A-Za-z0-9_-]{43}$/;

/**
 * The authorization server hooks of DPoP.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9449#section-5
 */
export function dpopAuthorizationServer(
  options: DpopAuthorizationServerOptions = {},
): AuthorizationServerProofOfPossession {
  const algorithms = checkedAlgorithms(options.algorithms);
  const maxAgeSeconds = options.maxAgeSeconds ?? DEFAULT_PROOF_MAX_AGE;
  return {
    scheme: DPOP_SCHEME,
    async verifyTokenRequest(request, context) {
      const values = request.headerValues(DPOP_HEADER);
      if (values.length === 0) return undefined;
      const proof = await verifyDpopProof(values, {
        method: 'POST',
        url: context.tokenEndpoint,
        algorithms,
        maxAgeSeconds,
        ...(options.nonces ? { nonces: options.nonces } : {}),
        useOnce: (jti, expiresAt) => context.useOnce('dpop', jti, expiresAt),
      });
      return { confirmation: { jkt: proof.jkt }, tokenType: DPOP_SCHEME };
    },
    authorizationRequestConfirmation(params) {
      const jkt = params['dpop_jkt'];
      if (jkt === undefined) return undefined;
      if (!JKT.test(jkt)) {
        throw new OAuthError(
          'invalid_request',
          'dpop_jkt must be the base64url SHA-256 thumbprint of a JWK.',
        );
      }
      return { jkt };
    },
    requiredFor(client: RegisteredClient | undefined) {
      return options.required === true || client?.metadata['dpop_bound_access_tokens'] === true;
    },
  };
}

/** The proof algorithms, refusing any that is not asymmetric (RFC 9449 section 4.3 item 5). */
export function checkedAlgorithms(algorithms: readonly string[] | undefined): readonly string[] {
  const chosen = algorithms ?? DPOP_ALGORITHMS;
  if (chosen.length === 0) throw new TypeError('DPoP needs at least one proof algorithm');
  const refused = chosen.filter((alg) => !(DPOP_ALGORITHMS as readonly string[]).includes(alg));
  if (refused.length > 0) {
    throw new TypeError(
      `DPoP proof algorithms must be asymmetric (${DPOP_ALGORITHMS.join(', ')}); refused: ${refused.join(', ')}`,
    );
  }
  return [...chosen];
}
