// Rules kept: OpenID Connect Core 5.4 (`profile` asks for the End-User's default profile claims, of which this server
// knows `name` and `preferred_username`; `email` for `email` and `email_verified`) and 5.3.2 (a claim the server does
// not have is left out, never sent empty or null).
import type { User } from '@portcullis/persistence';

/** The claims of the person that the granted `scopes` ask for and the user has. */
export type IdentityClaims = Partial<Record<'name' | 'preferred_username' | 'email', string>> & {
  email_verified?: boolean;
};

/**
 * The claims `profile` and `email` grant, of `user`: for `profile` the username as `preferred_username` and the
 * display name as `name` where one is set; for `email` the address and whether it was verified, where the user has
 * one. Other scopes add nothing.
 *
 * @see https://openid.net/specs/openid-connect-core-1_0.html#ScopeClaims
 * @see https://openid.net/specs/openid-connect-core-1_0.html#StandardClaims
 */
export function identityClaims(user: User, scopes: readonly string[]): IdentityClaims {
  const claims: IdentityClaims = {};
  if (scopes.includes('profile')) {
    if (user.name) claims.name = user.name;
    claims.preferred_username = user.username;
  }
  if (scopes.includes('email') && user.email) {
    claims.email = user.email;
    claims.email_verified = user.emailVerified;
  }
  return claims;
}
