/**
 * The client SDK's one error type, with a stable `code` per failure (tests and callers branch on codes, never on
 * messages).
 *
 * Rules kept here:
 * - MCP 2026-07-28 "Authorization Response Validation" and RFC 9207 Section 4: an authorization response whose
 *   `state` or `iss` failed its check is never shown or acted on, so errors raised for those failures carry no
 *   `error`, `error_description` or `error_uri` from the response; only
 *   {@link PortcullisError.authorizationServerError} carries them, and only after both checks passed.
 * - Tokens and secrets never reach an error: `details` holds URLs, issuers, scopes and codes only.
 */

/**
 * Every failure the client reports, by stable code.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9728#section-3.3
 * @see https://www.rfc-editor.org/rfc/rfc8414#section-3.3
 * @see https://www.rfc-editor.org/rfc/rfc9207#section-2.4
 * @see https://www.rfc-editor.org/rfc/rfc9449#section-7.1
 */
export const PORTCULLIS_ERROR_CODES = [
  /** The protected resource's 401 named no `resource_metadata` where the revision requires it. */
  'resource_metadata_missing',
  /** No Protected Resource Metadata document could be fetched (network failure, 5xx, or every URL 4xx). */
  'resource_metadata_unavailable',
  /** The Protected Resource Metadata document is not a valid RFC 9728 document. */
  'invalid_resource_metadata',
  /** The PRM `resource` is not the resource being called (RFC 9728 Section 3.3). */
  'resource_mismatch',
  /** `selectAuthorizationServer` chose an issuer the PRM does not list. */
  'authorization_server_not_listed',
  /** No authorization server metadata could be fetched. */
  'metadata_unavailable',
  /** The authorization server metadata is not a valid RFC 8414 document, or lacks an endpoint the flow needs. */
  'invalid_metadata',
  /** A URL in a metadata document uses a refused scheme (`javascript:`, `data:`, ...) or plain http off loopback. */
  'unsafe_endpoint',
  /** The metadata `issuer` differs from the issuer its well-known URL was built from (RFC 8414 Section 3.3). */
  'issuer_mismatch',
  /** The authorization server does not advertise S256 PKCE. */
  'pkce_unsupported',
  /** No client ID could be obtained: nothing pre-registered, no usable CIMD, no registration endpoint. */
  'no_client_id',
  /** Dynamic client registration failed. */
  'registration_failed',
  /**
   * The client's configured authentication (`private_key_jwt` with its key's algorithm) is not one the authorization
   * server lists in its metadata (RFC 8414 Section 2).
   */
  'client_auth_unsupported',
  /** The callback is not at the redirect URI, repeats a parameter, or has neither `code` nor `error`. */
  'invalid_callback',
  /** The callback's `state` is missing or not the one sent. */
  'state_mismatch',
  /** The authorization server advertises `iss` but the callback has none (RFC 9207 Section 2.4). */
  'iss_missing',
  /** The callback's `iss` is not the recorded issuer (RFC 9207 Section 2.4). */
  'iss_mismatch',
  /** The authorization server answered the authorization request with an error (after `state` and `iss` passed). */
  'authorization_denied',
  /** The authorization server does not list the grant type a chosen grant strategy needs (RFC 8414 Section 2). */
  'grant_type_unsupported',
  /** The token endpoint refused a request or answered with something that is not a token response. */
  'token_request_failed',
  /** The token response's `token_type` is not `Bearer`. */
  'unsupported_token_type',
  /**
   * The authorization server requires proof of possession (DPoP) for its tokens, and the resource does not advertise
   * that it accepts such tokens (RFC 9728 Section 2 metadata, RFC 9449 Section 7.1 challenge): no token from that
   * server can be used there.
   */
  'proof_of_possession_required',
  /** A refresh token was rejected with `invalid_grant` (the caller starts a new authorization). */
  'refresh_rejected',
  /**
   * Step-up authorization did not satisfy the resource within the attempt limit (MCP 2026-07-28 "Step-Up
   * Authorization Flow").
   */
  'step_up_exhausted',
  /** The resource rejected a token that was just issued for it. */
  'token_rejected',
  /** The user-agent could not complete the authorization (no redirect, timeout, browser failure). */
  'user_agent_failed',
  /** The token store could not be read or written. */
  'token_store_failed',
] as const;

/**
 * A stable error code of {@link PortcullisError}.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-5.2
 */
export type PortcullisErrorCode = (typeof PORTCULLIS_ERROR_CODES)[number];

/**
 * What the authorization server said in an error response (RFC 6749 Sections 4.1.2.1 and 5.2), kept only where it
 * may be shown: after `state` and `iss` passed, or from the token endpoint.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.1.2.1
 */
export interface AuthorizationServerError {
  readonly error: string;
  readonly errorDescription?: string;
  readonly errorUri?: string;
}

/** Facts attached to an error, for a person or a log: URLs, issuers, scopes, codes. Never tokens or secrets. */
export type PortcullisErrorDetails = Readonly<
  Record<string, string | number | boolean | readonly string[] | undefined>
>;

/**
 * The client SDK's error: a stable `code`, a message a person can act on, optional `details`.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9207#section-4
 */
export class PortcullisError extends Error {
  override readonly name = 'PortcullisError';

  constructor(
    readonly code: PortcullisErrorCode,
    message: string,
    readonly details: PortcullisErrorDetails = {},
    options: { cause?: unknown; authorizationServerError?: AuthorizationServerError } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.authorizationServerError = options.authorizationServerError;
  }

  /** The authorization server's own error, when it may be shown (see the module comment). */
  readonly authorizationServerError: AuthorizationServerError | undefined;
}

/**
 * Whether `value` is a {@link PortcullisError}, optionally with one of `codes`.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-5.2
 */
export function isPortcullisError(value: unknown, ...codes: PortcullisErrorCode[]): value is PortcullisError {
  return value instanceof PortcullisError && (codes.length === 0 || codes.includes(value.code));
}

/**
 * The first {@link PortcullisError} in an error's `cause` chain: the MCP SDK and other callers wrap what a fetch
 * throws, and the code is what a caller needs.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-5.2
 */
export function findPortcullisError(error: unknown): PortcullisError | undefined {
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (current !== undefined && current !== null && !seen.has(current)) {
    if (current instanceof PortcullisError) return current;
    seen.add(current);
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
