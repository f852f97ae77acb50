// Rules kept: SEP-990 sections 6.4.2 and 6.5.4 (the ID token, the IdP client secret and the ID-JAG never reach an
// error); RFC 6749 5.2 (`error` and `error_description` are %x20-21 / %x23-5B / %x5D-7E): the IdP's
// `error_description` is shown only when it is such text, of a reasonable length, that does not repeat a
// credential, with anything shaped like a JWT cut out.

/**
 * Every failure of the token exchange, by stable code.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8693#section-2.2
 */
export type IdJagErrorCode =
  /** The IdP's token endpoint could not be reached (network failure). */
  | 'idp_request_failed'
  /** The IdP answered the token exchange with an error (RFC 6749 5.2), a redirect, or any status but 200. */
  | 'token_exchange_refused'
  /** The IdP answered 200 with something that is not an ID-JAG (SEP-990 sections 4.2 and 4.3). */
  | 'invalid_token_exchange_response'
  /** The IdP's ID-JAG carries none of the scope the client requested (RFC 8693 2.2.1 `scope`). */
  | 'scope_not_granted';

/** The IdP's own error (RFC 6749 5.2), as far as it may be shown. */
export interface IdpError {
  readonly error: string;
  readonly errorDescription?: string;
}

/**
 * A failed token exchange at the enterprise IdP: a stable `code`, a message a person can act on, and `details`
 * holding URLs, statuses and codes only, never a token or a secret.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8693#section-2.2.2
 */
export class IdJagError extends Error {
  override readonly name = 'IdJagError';

  constructor(
    readonly code: IdJagErrorCode,
    message: string,
    readonly details: Readonly<Record<string, string | number | undefined>>,
    options: { cause?: unknown; idpError?: IdpError } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.idpError = options.idpError;
  }

  /** What the IdP said, when it sent a well-formed error response. */
  readonly idpError: IdpError | undefined;
}

/** RFC 6749 5.2: `error` and `error_description` are %x20-21 / %x23-5B / %x5D-7E. */
const ERROR_TEXT = /^[\x20\x21\x23-\x5B\x5D-\x7E]+$/u;
/** Anything in a message that looks like a JWT: removed before an IdP's text is shown. */
const JWT_LIKE = /[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*/gu;
const MAX_DESCRIPTION = 200;

/**
 * The IdP's RFC 6749 5.2 error, with a description only when it is plain error text of a reasonable length, and
 * without any of `secrets` (the ID token, the IdP client secret) or anything JWT-shaped an IdP might echo.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-5.2
 */
export function readIdpError(
  json: Record<string, unknown> | undefined,
  secrets: readonly (string | undefined)[],
): IdpError | undefined {
  const error = json?.['error'];
  if (typeof error !== 'string' || error.length > 100 || !ERROR_TEXT.test(error)) return undefined;
  const description = json?.['error_description'];
  if (
    typeof description !== 'string' ||
    description.length > MAX_DESCRIPTION ||
    !ERROR_TEXT.test(description)
  ) {
    return { error };
  }
  // A description that repeats a credential is not shown at all; JWT-shaped text (another token) is cut out.
  if (secrets.some((secret) => secret !== undefined && description.includes(secret))) return { error };
  return { error, errorDescription: description.replace(JWT_LIKE, '[redacted]') };
}
