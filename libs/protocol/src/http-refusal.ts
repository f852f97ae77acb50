/**
 * Refusals made at the HTTP layer, before any OAuth rule is applied: the request has no route, a body the server
 * will not read, or comes too often. Each has its own HTTP status, the one its HTTP meaning gives it, and an
 * RFC 6749 Section 5.2 body. The wire code is not the key: a refusal is sent as the registered code closest in
 * meaning (`invalid_request`, or `temporarily_unavailable` for a rate limit), with the refusal's own status rather
 * than the code's in `OAUTH_ERROR_STATUS`.
 *
 * Rules kept here:
 * - RFC 9110 Section 15.5: 400 (malformed), 404 (no such resource), 405 (method not allowed), 413 (content too
 *   large), 415 (unsupported media type).
 * - RFC 6585 Section 4: 429 (too many requests), with `Retry-After` where the server knows when to retry.
 * - RFC 6749 Section 5.2: every refusal is answered with `{ error, error_description }`.
 */
import { OAuthError, type OAuthErrorCode, type OAuthErrorResponseBody } from './oauth-error.js';

/**
 * One refusal of the HTTP layer: the status it is sent with, the registered code and the description of its body.
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc6749#section-5.2 RFC 6749 Section 5.2}
 */
export interface HttpRefusal {
  readonly status: number;
  readonly error: OAuthErrorCode;
  readonly description: string;
}

/**
 * Every refusal of the HTTP layer, by name.
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc9110#section-15.5 RFC 9110 Section 15.5}
 * @see {@link https://www.rfc-editor.org/rfc/rfc6585#section-4 RFC 6585 Section 4}
 */
export const HTTP_REFUSALS = Object.freeze({
  // RFC 9110 Section 15.5
  malformed: { status: 400, error: 'invalid_request', description: 'the request is malformed' },
  no_such_endpoint: { status: 404, error: 'invalid_request', description: 'no such endpoint' },
  method_not_allowed: { status: 405, error: 'invalid_request', description: 'method not allowed' },
  body_too_large: { status: 413, error: 'invalid_request', description: 'the request body is too large' },
  unsupported_media_type: { status: 415, error: 'invalid_request', description: 'unsupported content type' },
  // RFC 6585 Section 4; RFC 6749 Section 4.1.2.1 names `temporarily_unavailable` for a server that cannot serve
  // the request for now.
  rate_limited: {
    status: 429,
    error: 'temporarily_unavailable',
    description: 'too many requests; retry later',
  },
} as const satisfies Record<string, HttpRefusal>);

/** The name of an {@link HttpRefusal} in {@link HTTP_REFUSALS}. */
export type HttpRefusalName = keyof typeof HTTP_REFUSALS;

/**
 * A refusal of the HTTP layer thrown by an endpoint (a body it will not read, a client over its rate limit): the
 * status and the body come from {@link HTTP_REFUSALS}, never from the throw site. `headers` go with the response
 * (`Retry-After`, RFC 6585 Section 4).
 *
 * @example
 * ```ts
 * throw new HttpRefusalError('unsupported_media_type');
 * // status 415, body { error: 'invalid_request', error_description: 'unsupported content type' }
 * ```
 */
export class HttpRefusalError extends Error {
  readonly refusal: HttpRefusalName;
  /** The HTTP status, from {@link HTTP_REFUSALS}. */
  readonly status: number;
  /** Response headers the refusal carries, lowercase names. */
  readonly headers: Readonly<Record<string, string>>;

  constructor(refusal: HttpRefusalName, options?: { headers?: Record<string, string>; cause?: unknown }) {
    super(
      HTTP_REFUSALS[refusal].description,
      options?.cause === undefined ? undefined : { cause: options.cause },
    );
    this.name = 'HttpRefusalError';
    this.refusal = refusal;
    this.status = HTTP_REFUSALS[refusal].status;
    this.headers = Object.freeze({ ...options?.headers });
  }

  /** The RFC 6749 Section 5.2 JSON body of the refusal. */
  toResponseBody(): OAuthErrorResponseBody {
    const { error, description } = HTTP_REFUSALS[this.refusal];
    return new OAuthError(error, description).toResponseBody();
  }
}

/**
 * The `error_description` of an `invalid_request` that the web framework, not an endpoint, refused: no route for the
 * path or method (404, 405), a body over the limit (413), an unsupported media type (415), or a request it could not
 * parse at all (400, and any other status). Every app answers these in its own OAuth JSON format with this text,
 * and the framework's status.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-5.2
 */
export function describeFrameworkRefusal(status: number): string {
  const refusal = Object.values(HTTP_REFUSALS).find(
    (candidate) => candidate.status === status && candidate.error === 'invalid_request',
  );
  return (refusal ?? HTTP_REFUSALS.malformed).description;
}
