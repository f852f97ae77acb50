/**
 * The resource server side of DPoP: the proof of every request that presents a DPoP-bound token.
 *
 * Rules kept here:
 * - RFC 9449 section 7.1: `Authorization: DPoP <token>` with one proof for this request (`htm`, `htu` the request
 *   URI without query and fragment), `ath` the hash of that token, signed by the key the token is bound to
 *   (`cnf.jkt`, section 6.1).
 * - RFC 9449 section 7.1: the challenge names the accepted algorithms (`algs`).
 * - RFC 9449 section 9: with nonces on, a proof without the current nonce gets `use_dpop_nonce` and a fresh one.
 * - RFC 9449 section 11.1: a proof's `jti` is used once, in a store every instance shares.
 */
import type { ResourceServerProofOfPossession } from '@portcullis/extensions';
import { OAuthError } from '@portcullis/protocol';
import { DEFAULT_PROOF_MAX_AGE, DPOP_SCHEME } from '../constants.js';
import { checkedAlgorithms } from '../authorization-server/dpop.authorization-server.js';
import type { DpopNonces } from '../proof/dpop-nonce.js';
import { DPOP_HEADER, verifyDpopProof } from '../proof/dpop-proof.check.js';
import { memoryReplayStore, type ReplayStore } from '../proof/replay-store.js';

/** The resource server's DPoP settings. */
export interface DpopResourceServerOptions {
  /** Accepted proof algorithms, published as `dpop_signing_alg_values_supported` and in `algs`. */
  readonly algorithms?: readonly string[];
  /** Where used `jti`s are kept; instances behind one balancer must share it. Default: this process's memory. */
  readonly replayStore?: ReplayStore;
  /** Whether every token must be DPoP-bound (Bearer refused). Default false. */
  readonly required?: boolean;
  /** Server nonces (RFC 9449 section 9); none by default. */
  readonly nonces?: DpopNonces;
  /** How far `iat` may be from now, in seconds. Default 60. */
  readonly maxAgeSeconds?: number;
}

/**
 * The resource server hooks of DPoP.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9449#section-7
 */
export function dpopResourceServer(options: DpopResourceServerOptions = {}): ResourceServerProofOfPossession {
  const algorithms = checkedAlgorithms(options.algorithms);
  const maxAgeSeconds = options.maxAgeSeconds ?? DEFAULT_PROOF_MAX_AGE;
  const replayStore = options.replayStore ?? memoryReplayStore();
  return {
    scheme: DPOP_SCHEME,
    challengeParameters: { algs: algorithms.join(' ') },
    algorithms,
    required: options.required === true,
    binds: (confirmation) => typeof confirmation['jkt'] === 'string',
    async verifyRequest(request, token) {
      const jkt = token.confirmation?.['jkt'];
      if (typeof jkt !== 'string') {
        throw new OAuthError('invalid_token', 'The access token is not bound to a DPoP key.');
      }
      await verifyDpopProof(request.headerValues(DPOP_HEADER), {
        method: request.method,
        url: request.url,
        accessToken: token.token,
        boundTo: jkt,
        algorithms,
        maxAgeSeconds,
        ...(options.nonces ? { nonces: options.nonces } : {}),
        useOnce: (jti, expiresAt) => replayStore.useOnce(jti, expiresAt),
      });
    },
  };
}
