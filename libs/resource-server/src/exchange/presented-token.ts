/**
 * Which access token a request presented, kept beside the views of it that handlers hold (the resource server's
 * `AuthInfo`, the MCP SDK's), never in them: a handler cannot read the token, so it cannot pass it through to an
 * upstream API (MCP "Token Passthrough"); only this library's RFC 8693 exchange presents it, and only to the
 * authorization server that issued it.
 *
 * @see {@link https://modelcontextprotocol.io/specification/2025-11-25/basic/security_best_practices#token-passthrough MCP Token Passthrough}
 */
const PRESENTED = new WeakMap<object, string>();

/** Records that `view` describes `token` (the verifier, for each token it accepts). */
export function rememberPresentedToken(view: object, token: string): void {
  PRESENTED.set(view, token);
}

/**
 * Carries the association from the resource server's `AuthInfo` to another view of the same request's token (the
 * SDK's `AuthInfo` an app builds from it), so that `upstreamToken` accepts either.
 */
export function carryPresentedToken(from: object, to: object): void {
  const token = PRESENTED.get(from);
  if (token !== undefined) PRESENTED.set(to, token);
}

/** The token `view` describes; library-internal (not exported by the package). */
export function presentedTokenOf(view: object): string | undefined {
  return PRESENTED.get(view);
}
