// Rules kept: RFC 9700 4.14.2 (a rotated-out refresh token presented again is reuse), relaxed only by an operator's
// grace window (REFRESH_TOKEN_REUSE_GRACE, as Ory Hydra's rotation grace period and Keycloak's refresh token max
// reuse), and RFC 6749 4.1.2 (a code is single use), relaxed only by AUTHORIZATION_CODE_REUSE_GRACE: within the
// window the same client, asking for the same thing, gets the very response its first presentation got, never new
// tokens. The response is kept sealed with a key derived from the presented refresh token or code itself, which the
// server stores only hashed (../tokens/sealed.ts): whoever reads the database cannot open it, and only a presenter
// of that token, with the same request (scope and proof key, bound as additional data), can.
import type { TokenRequestProof, TokenResponse } from '@portcullis/extensions';
import { seal, unseal } from '../tokens/sealed.js';

/** What a presentation asks for: a replay is given only to a request asking for the same. */
export interface ReplayRequest {
  /** The scopes the request gets, in the order issued. */
  readonly scopes: readonly string[];
  /** The confirmation of the request's proof of possession (`{"jkt": …}`, RFC 9449 6.1), as JSON, when it had one. */
  readonly proofKey?: string;
}

/** What a token request with `scopes` and `proof` asks for. */
export function replayRequest(
  scopes: readonly string[],
  proof: TokenRequestProof | undefined,
): ReplayRequest {
  return { scopes, ...(proof ? { proofKey: JSON.stringify(proof.confirmation) } : {}) };
}

/** What was presented: a refresh token, or an authorization code (each its own key, never one for the other). */
export type Presented = 'refresh_token' | 'authorization_code';

const INFO: Record<Presented, string> = {
  refresh_token: 'portcullis refresh token replay v1',
  authorization_code: 'portcullis authorization code replay v1',
};

function additionalData(request: ReplayRequest): string {
  return JSON.stringify([[...request.scopes].sort(), request.proofKey ?? null]);
}

/**
 * Seals the response a refresh token's (or code's) presentation got, for a presentation of the same token with the
 * same request within the grace window.
 */
export function sealReplay(
  presented: string,
  request: ReplayRequest,
  response: TokenResponse,
  kind: Presented = 'refresh_token',
): string {
  return seal(INFO[kind], presented, additionalData(request), response);
}

/**
 * The sealed response, when `presented` is the token it was sealed for and `request` asks for the same; undefined
 * otherwise (another token, another scope or proof key, a damaged value).
 */
export function openReplay(
  presented: string,
  request: ReplayRequest,
  sealed: string,
  kind: Presented = 'refresh_token',
): TokenResponse | undefined {
  return unseal(INFO[kind], presented, additionalData(request), sealed) as TokenResponse | undefined;
}
