/**
 * Who a request acts for: the issuer of its access token and the token's `sub`. A subject is unique only within its
 * issuer (RFC 9068 2.2, OpenID Connect Core 2: `sub` is "locally unique ... within the Issuer"), and this server
 * trusts more than one issuer (the authorization server and the proxy), so every per-user row and session is keyed
 * by both.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9068#section-2.2
 */
export interface Owner {
  readonly issuer: string;
  readonly subject: string;
}

/** Whether two owners are the same user. */
export function sameOwner(a: Owner, b: Owner): boolean {
  return a.issuer === b.issuer && a.subject === b.subject;
}
