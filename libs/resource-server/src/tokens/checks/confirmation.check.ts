/**
 * Rules kept here:
 * - RFC 7800 Section 3.1: `cnf`, when present, is a JSON object of confirmation methods; RFC 7662 Section 2.2 and
 *   RFC 9449 Section 6.2 carry the same member in an introspection answer. A token whose `cnf` is anything else is
 *   refused: it claims a binding this resource cannot read, and must never pass as an unbound bearer token.
 * - RFC 9449 Section 6.1: the DPoP method, `jkt`, is a base64url SHA-256 thumbprint; its form is the extension's to
 *   judge (`binds`), the host only keeps the object.
 */
import type { Confirmation } from '@portcullis/extensions';
import { invalidToken, type TokenCheck } from './token-check.js';

/**
 * Rejects claims whose `cnf` is present but not a JSON object. Shared by JWT access tokens and introspection
 * responses.
 *
 * @throws OAuthError `invalid_token`
 * @see {@link https://www.rfc-editor.org/rfc/rfc7800#section-3.1 RFC 7800 Section 3.1}
 */
export const checkConfirmation: TokenCheck = (claims) => {
  const { cnf } = claims;
  if (cnf === undefined) return;
  if (typeof cnf !== 'object' || cnf === null || Array.isArray(cnf)) {
    throw invalidToken('The access token has a malformed cnf.');
  }
};

/**
 * The token's confirmation as `AuthInfo` keeps it: a frozen copy of `cnf` (already checked), or
 * `undefined` for an unbound token.
 */
export function confirmationOf(claims: Readonly<Record<string, unknown>>): Confirmation | undefined {
  const { cnf } = claims;
  if (typeof cnf !== 'object' || cnf === null || Array.isArray(cnf)) return undefined;
  return deepFreeze(structuredClone(cnf) as Confirmation);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const member of Object.values(value)) deepFreeze(member);
    Object.freeze(value);
  }
  return value;
}
