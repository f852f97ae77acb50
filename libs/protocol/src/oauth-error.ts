/**
 * The OAuth error model: one error class, one union of wire codes, one code-to-status table.
 *
 * Rules kept here:
 * - Error codes are the registered ones, spelled exactly as on the wire: RFC 6749 Section 4.1.2.1 (authorization
 *   endpoint) and Section 5.2 (token endpoint), RFC 6750 Section 3.1 (resource server), RFC 7591 Section 3.2.2
 *   (registration), RFC 8707 Section 2 (`invalid_target`), RFC 7009 Section 2.2.1 (`unsupported_token_type`), and
 *   the OpenID Connect Core 1.0 Section 3.1.2.6 codes an authorization server honouring `prompt` answers with.
 *   RFC 9207 defines no code of its own: an `iss` mismatch is a client-side refusal
 *   (see `checkAuthorizationResponseIssuer`).
 * - The HTTP status comes from {@link OAUTH_ERROR_STATUS}, never from the throw site (RFC 6749 Section 5.2,
 *   RFC 6750 Section 3.1).
 * - `error_description` carries only the characters RFC 6749 Section 5.2 allows (%x20-21 / %x23-5B / %x5D-7E),
 *   so the same text is safe in a JSON body and inside a quoted `WWW-Authenticate` parameter.
 */

/**
 * Every OAuth error code Portcullis emits or understands, mapped to the HTTP status it is sent with.
 *
 * `invalid_client` is 401 (RFC 6749 Section 5.2 requires 401 when the client authenticated through the
 * `Authorization` header, and allows it otherwise); `invalid_token` is 401 and `insufficient_scope` 403 (RFC 6750
 * Section 3.1); `server_error` and `temporarily_unavailable` are 500 and 503, their HTTP meaning when they cannot be
 * redirected (RFC 6749 Section 4.1.2.1); everything else is a 400.
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc6749#section-5.2 RFC 6749 Section 5.2}
 * @see {@link https://www.rfc-editor.org/rfc/rfc6750#section-3.1 RFC 6750 Section 3.1}
 */
export const OAUTH_ERROR_STATUS = Object.freeze({
  // RFC 6749 Section 4.1.2.1 and Section 5.2
  invalid_request: 400,
  invalid_client: 401,
  invalid_grant: 400,
  unauthorized_client: 400,
  unsupported_grant_type: 400,
  unsupported_response_type: 400,
  invalid_scope: 400,
  access_denied: 400,
  server_error: 500,
  temporarily_unavailable: 503,
  // RFC 6750 Section 3.1
  invalid_token: 401,
  insufficient_scope: 403,
  // RFC 7591 Section 3.2.2
  invalid_redirect_uri: 400,
  invalid_client_metadata: 400,
  invalid_software_statement: 400,
  unapproved_software_statement: 400,
  // RFC 8707 Section 2
  invalid_target: 400,
  // RFC 7009 Section 2.2.1
  unsupported_token_type: 400,
  // OpenID Connect Core 1.0 Section 3.1.2.6 (answers to `prompt`)
  interaction_required: 400,
  login_required: 400,
  account_selection_required: 400,
  consent_required: 400,
  // RFC 9449 Sections 5, 7.1 and 8 (at a resource server these two travel in a 401 challenge, Section 7.1)
  invalid_dpop_proof: 400,
  use_dpop_nonce: 400,
} as const satisfies Record<string, number>);

/**
 * An OAuth error code as it appears in the `error` member of a response body or a `WWW-Authenticate` challenge.
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc6749#section-5.2 RFC 6749 Section 5.2}
 * @see {@link https://www.rfc-editor.org/rfc/rfc6750#section-3.1 RFC 6750 Section 3.1}
 * @see {@link https://www.rfc-editor.org/rfc/rfc7591#section-3.2.2 RFC 7591 Section 3.2.2}
 * @see {@link https://www.rfc-editor.org/rfc/rfc8707#section-2 RFC 8707 Section 2}
 */
export type OAuthErrorCode = keyof typeof OAUTH_ERROR_STATUS;

/**
 * Every {@link OAuthErrorCode}, in the order of {@link OAUTH_ERROR_STATUS}.
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc6749#section-11.4 RFC 6749 Section 11.4 (the error registry)}
 */
export const OAUTH_ERROR_CODES: readonly OAuthErrorCode[] = Object.freeze(
  Object.keys(OAUTH_ERROR_STATUS) as OAuthErrorCode[],
);

/**
 * Whether `value` is one of the {@link OAuthErrorCode}s, for narrowing the `error` member of a received response.
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc6749#section-5.2 RFC 6749 Section 5.2}
 */
export function isOAuthErrorCode(value: unknown): value is OAuthErrorCode {
  return typeof value === 'string' && Object.hasOwn(OAUTH_ERROR_STATUS, value);
}

/**
 * The JSON body of an OAuth error response.
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc6749#section-5.2 RFC 6749 Section 5.2}
 */
export interface OAuthErrorResponseBody {
  error: OAuthErrorCode;
  error_description?: string;
  /** Members an extension defines beside them (RFC 6749 8.5 lets error responses be extended). */
  [member: string]: string | undefined;
}

// RFC 6749 Section 5.2: error_description = 1*( %x20-21 / %x23-5B / %x5D-7E ).
const DISALLOWED_DESCRIPTION_CHAR = /[^\x20-\x21\x23-\x5B\x5D-\x7E]/gu;

function toWireDescription(text: string): string {
  return text.replace(DISALLOWED_DESCRIPTION_CHAR, (char) => {
    if (char === '"') return "'";
    if (char === '\\') return '/';
    if (char === '\t' || char === '\n' || char === '\r') return ' ';
    return '?';
  });
}

/**
 * An OAuth protocol error: a registered {@link OAuthErrorCode}, an optional human-readable description, and the
 * HTTP status the code is always sent with.
 *
 * The description is reduced to the characters RFC 6749 Section 5.2 allows when the error is created (a double
 * quote becomes `'`, a backslash `/`, a tab or line break a space, anything else outside the set `?`), so it can
 * be written into a response body or a `WWW-Authenticate` parameter unchanged. An empty description is dropped.
 *
 * @example
 * ```ts
 * throw new OAuthError('invalid_target', 'resource must not contain a fragment');
 * // status 400, body { error: 'invalid_target', error_description: 'resource must not contain a fragment' }
 * ```
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc6749#section-5.2 RFC 6749 Section 5.2}
 * @see {@link https://www.rfc-editor.org/rfc/rfc6750#section-3.1 RFC 6750 Section 3.1}
 */
export class OAuthError extends Error {
  /** The registered error code, sent as `error`. */
  readonly code: OAuthErrorCode;
  /** The human-readable text, sent as `error_description`; only RFC 6749 Section 5.2 characters. */
  readonly description?: string;
  /** The HTTP status, from {@link OAUTH_ERROR_STATUS}. */
  readonly status: number;

  /**
   * Response header fields the error must travel with, e.g. `DPoP-Nonce` with `use_dpop_nonce`
   * (RFC 9449 Sections 8 and 9). Every exception filter writes them.
   */
  readonly headers: Readonly<Record<string, string>>;

  /** Members of the body beside `error` and `error_description` (such as the proxy's `interaction_uri`). */
  readonly members: Readonly<Record<string, string>>;

  constructor(
    code: OAuthErrorCode,
    description?: string,
    options?: {
      cause?: unknown;
      headers?: Readonly<Record<string, string>>;
      members?: Readonly<Record<string, string>>;
    },
  ) {
    if (!isOAuthErrorCode(code)) {
      throw new TypeError(`unknown OAuth error code: ${String(code)}`);
    }
    const wireDescription = description ? toWireDescription(description) : undefined;
    super(wireDescription ?? code, options);
    this.name = 'OAuthError';
    this.code = code;
    if (wireDescription !== undefined) this.description = wireDescription;
    this.status = OAUTH_ERROR_STATUS[code];
    this.headers = Object.freeze({ ...options?.headers });
    const members = { ...options?.members };
    delete members['error'];
    delete members['error_description'];
    this.members = Object.freeze(members);
  }

  /**
   * The RFC 6749 Section 5.2 JSON body: `{ error, error_description? }`.
   *
   * @see {@link https://www.rfc-editor.org/rfc/rfc6749#section-5.2 RFC 6749 Section 5.2}
   */
  toResponseBody(): OAuthErrorResponseBody {
    return this.description === undefined
      ? { ...this.members, error: this.code }
      : { ...this.members, error: this.code, error_description: this.description };
  }
}
