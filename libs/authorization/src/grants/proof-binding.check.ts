// Rules kept: RFC 9449 section 10 (a code whose authorization request named a key with `dpop_jkt` is redeemed only
// with a proof of that key: "If they do not match, it MUST reject the request") and RFC 9449 section 5 (a refresh
// token bound to a public client's key is used only with a proof of that same key). A request without a proof is
// `invalid_dpop_proof` (what it lacks is the proof; the client can send one); a proof of another key is
// `invalid_grant` (the proof is good, the grant is not this key's: RFC 6749 5.2). Confirmations compare as JSON
// values, member by member. The grants run this before they consume the code or the refresh token, so a refused
// request leaves it usable by the key holder and never counts as a replay.
import { isDeepStrictEqual } from 'node:util';
import type { Confirmation, TokenRequestProof } from '@portcullis/extensions';
import type { Prisma } from '@portcullis/persistence';
import { OAuthError } from '@portcullis/protocol';

/**
 * Refuses a token request that does not prove possession of the key `bound` names; accepts anything when the grant
 * is unbound (`bound` undefined).
 *
 * @throws OAuthError `invalid_dpop_proof` without a proof, `invalid_grant` with a proof of another key.
 * @see https://www.rfc-editor.org/rfc/rfc9449#section-10
 * @see https://www.rfc-editor.org/rfc/rfc9449#section-5
 */
export function assertProofOfBoundKey(
  bound: Confirmation | undefined,
  proof: TokenRequestProof | undefined,
  grant: 'authorization code' | 'refresh token',
): void {
  if (bound === undefined) return;
  if (proof === undefined) {
    throw new OAuthError(
      'invalid_dpop_proof',
      `this ${grant} is bound to a key: a proof of possession of that key is required`,
    );
  }
  if (!isDeepStrictEqual(proof.confirmation, bound)) {
    throw new OAuthError('invalid_grant', `this ${grant} is bound to another key`);
  }
}

/**
 * A confirmation as stored in a JSON column: `undefined` for SQL NULL (unbound). Anything but a JSON object is a
 * corrupt row, never read as unbound.
 */
export function storedConfirmation(value: Prisma.JsonValue | null): Confirmation | undefined {
  if (value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new Error('a stored confirmation is not a JSON object');
  }
  return value as Confirmation;
}
