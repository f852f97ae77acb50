/**
 * Which access token a request presented, and whose it is, kept beside the views of it that handlers hold (the
 * resource server's `AuthInfo`, the MCP SDK's), never in them: a handler cannot read the token, so it cannot pass it
 * through to an upstream API (MCP "Token Passthrough"); only this library's RFC 8693 exchange presents it, and only
 * to the authorization server that issued it. The issuer and subject are recorded from the verified token when it is
 * accepted, so changing a field of a view (its `extra.subject`) changes nothing here.
 *
 * @see {@link https://modelcontextprotocol.io/specification/2025-11-25/basic/security_best_practices#token-passthrough MCP Token Passthrough}
 */

/** A presented token and the verified issuer and subject it was accepted for. */
export interface PresentedToken {
  readonly token: string;
  readonly issuer: string;
  readonly subject: string;
}

const PRESENTED = new WeakMap<object, PresentedToken>();

/** Records that `view` describes `token`, accepted as `issuer`'s token for `subject` (the verifier's call). */
export function rememberPresentedToken(
  view: object,
  token: string,
  verified: { issuer: string; subject: string },
): void {
  PRESENTED.set(view, Object.freeze({ token, issuer: verified.issuer, subject: verified.subject }));
}

/** Whether `view` is already recorded as describing `token` (a cached verdict given again for the same token). */
export function presents(view: object, token: string): boolean {
  return PRESENTED.get(view)?.token === token;
}

/**
 * Carries the association from the resource server's `AuthInfo` to another view of the same request's token (the
 * SDK's `AuthInfo` an app builds from it), so that `upstreamToken` accepts either.
 */
export function carryPresentedToken(from: object, to: object): void {
  const presented = PRESENTED.get(from);
  if (presented !== undefined) PRESENTED.set(to, presented);
}

/** What `view` describes; library-internal (not exported by the package). */
export function presentedTokenOf(view: object): PresentedToken | undefined {
  return PRESENTED.get(view);
}
