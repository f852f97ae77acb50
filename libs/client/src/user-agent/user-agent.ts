/**
 * The user-agent contract: whatever takes the authorization URL to the user and brings the callback back.
 *
 * Rules kept here:
 * - RFC 8252 Section 7.3: a native client receives the callback on a loopback redirect URI; its port is chosen at
 *   request time, so the exact `redirect_uri` is known only once a session begins, while the registered one may
 *   omit the port.
 * - MCP "Authorization Flow Steps": the user-agent opens the authorization URL and returns the redirect to the
 *   callback with `code`, `state` and `iss` (or the error parameters); it checks nothing, the flow does (MCP
 *   2026-07-28 "Authorization Response Validation").
 */

/**
 * One authorization in progress at a user-agent.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8252#section-7.3
 */
export interface UserAgentSession {
  /** The exact `redirect_uri` to send with this authorization request and its token request. */
  readonly redirectUri: string;
  /** Takes the user to `authorizationUrl` and resolves with the full callback URL the server redirected to. */
  authorize(authorizationUrl: string): Promise<string>;
  /** Releases what the session holds (a loopback listener); safe to call more than once. */
  close(): Promise<void>;
}

/**
 * A user-agent for the authorization code flow.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.1
 * @see https://www.rfc-editor.org/rfc/rfc8252
 */
export interface UserAgent {
  /** The redirect URIs to register (dynamic registration) or to list in a client ID metadata document. */
  readonly redirectUris: readonly string[];
  /** Begins one authorization (for a loopback user-agent, starts listening on a random port). */
  begin(): Promise<UserAgentSession>;
}

/**
 * Whether `url` is the redirect URI itself or it with a query or fragment: the callback of this session.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-3.1.2
 */
export function isCallbackUrl(url: string, redirectUri: string): boolean {
  if (!url.startsWith(redirectUri)) return false;
  const next = url.charAt(redirectUri.length);
  return (
    next === '' ||
    (next === '?' && !redirectUri.includes('?')) ||
    next === '#' ||
    (next === '&' && redirectUri.includes('?'))
  );
}
