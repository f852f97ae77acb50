/**
 * Whether a validated token may be used the way the request presented it, with a proof-of-possession extension
 * (DPoP) composed. Runs after the token is validated and before its scopes are looked at, on every request: the
 * token's verdict may come from the cache, its proof never does.
 *
 * Rules kept here:
 * - RFC 9449 Section 7.1: a token presented with the extension's scheme (`Authorization: DPoP`) must be bound to a
 *   key of that scheme (`cnf.jkt`), else `invalid_token`; then the request's proof must verify for this request
 *   and this token (`invalid_dpop_proof`, or `use_dpop_nonce` with a fresh nonce, Section 9).
 * - RFC 9449 Section 7.2: a bound token presented as `Bearer` is refused, `invalid_token`: whoever holds it
 *   without the key must not be able to use it.
 * - RFC 9728 Section 2 (`dpop_bound_access_tokens_required`): when the extension requires bound tokens, an unbound
 *   token, or any `Bearer` presentation, is refused, `invalid_token`.
 * - A proof the extension cannot decide on (its replay store is unreachable) fails closed as
 *   `temporarily_unavailable` (503): not the client's fault, and never accepted.
 */
import type {
  HttpRequestView,
  ResourceProofContext,
  ResourceServerProofOfPossession,
} from '@portcullis/extensions';
import { OAuthError } from '@portcullis/protocol';
import type { AuthInfo } from '../auth-info.js';
import type { PresentedCredentials } from './authorization-header.check.js';

/**
 * Refuses a token presented as `Bearer` that is bound to a key of the proof scheme, or any token presented as
 * `Bearer` when the extension requires bound tokens.
 *
 * @throws OAuthError `invalid_token`
 * @see {@link https://www.rfc-editor.org/rfc/rfc9449#section-7.2 RFC 9449 Section 7.2}
 */
export function checkBearerPresentation(proof: ResourceServerProofOfPossession, auth: AuthInfo): void {
  const { confirmation } = auth;
  if (confirmation !== undefined && proof.binds(confirmation)) {
    throw new OAuthError(
      'invalid_token',
      `The access token is bound to a key: present it with the ${proof.scheme} scheme and a proof.`,
    );
  }
  if (proof.required) {
    throw new OAuthError('invalid_token', `This resource accepts only ${proof.scheme}-bound access tokens.`);
  }
}

/**
 * Refuses a token presented against its binding, then checks the request's proof when the token is presented with
 * the proof scheme.
 *
 * @throws OAuthError `invalid_token`, the extension's `invalid_dpop_proof` or `use_dpop_nonce`, or
 *   `temporarily_unavailable`.
 * @see {@link https://www.rfc-editor.org/rfc/rfc9449#section-7 RFC 9449 Section 7}
 */
export async function checkTokenBinding(
  proof: ResourceServerProofOfPossession,
  credentials: PresentedCredentials,
  auth: AuthInfo,
  request: HttpRequestView,
  context: ResourceProofContext,
): Promise<void> {
  if (credentials.scheme === 'bearer') {
    checkBearerPresentation(proof, auth);
    return;
  }
  const { confirmation } = auth;
  if (confirmation === undefined || !proof.binds(confirmation)) {
    throw new OAuthError('invalid_token', `The access token is not bound to a ${proof.scheme} key.`);
  }
  try {
    await proof.verifyRequest(request, { token: credentials.token, confirmation }, context);
  } catch (error) {
    if (error instanceof OAuthError) throw error;
    throw new OAuthError(
      'temporarily_unavailable',
      'The proof of possession could not be checked right now; retry with a new proof.',
      { cause: error },
    );
  }
}
