// Rules kept: OpenID Connect Core 5.1 (`name`, `email` strings, `email_verified` a boolean) and 5.3.2 (the UserInfo
// response and the ID token are two statements about the person; `email_verified` says whether the `email` beside
// it was verified, so it is read from the statement that gave that address, never paired with another's).
import type { UserProfile } from '@portcullis/authorization';
import { hasUnsafeCharacter } from '@portcullis/protocol';

/** Longer claims are not kept: no name or address needs more (RFC 5321 4.5.3.1: an address is at most 254). */
const MAX_CLAIM_LENGTH = 320;

/** The claims of one statement about the person: the ID token's, or the UserInfo response's. */
export type StatedClaims = Readonly<Record<string, unknown>>;

/** The first of `names` that some statement gives as a non-empty string, from the first statement that does. */
export function firstString(
  statements: readonly StatedClaims[],
  names: readonly string[],
): string | undefined {
  for (const name of names) {
    for (const statement of statements) {
      const value = statement[name];
      if (typeof value === 'string' && value.length > 0) return value;
    }
  }
  return undefined;
}

/**
 * The person's `name`, `email` and `email_verified` as the upstream stated them, from `statements` in order of
 * precedence (UserInfo first, the fresher, then the ID token), where stated with the right types as plain text (no
 * control character but tab and line breaks, which the database may not store, no lone surrogate). The address
 * comes from the first statement that has one, and `email_verified` from that same statement: true only when it says
 * exactly that.
 *
 * @see https://openid.net/specs/openid-connect-core-1_0.html#StandardClaims
 * @see https://openid.net/specs/openid-connect-core-1_0.html#UserInfoResponse
 */
export function statedProfile(statements: readonly StatedClaims[]): UserProfile {
  const plain = (value: string | undefined) =>
    value !== undefined && value.length <= MAX_CLAIM_LENGTH && !hasUnsafeCharacter(value) ? value : undefined;
  const name = plain(firstString(statements, ['name']));
  const source = statements.find((statement) => firstString([statement], ['email']) !== undefined);
  const email = source && plain(firstString([source], ['email']));
  return {
    ...(name !== undefined ? { name } : {}),
    ...(email !== undefined ? { email, emailVerified: source?.['email_verified'] === true } : {}),
  };
}
