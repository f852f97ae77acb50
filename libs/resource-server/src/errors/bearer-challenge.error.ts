import type { OAuthError } from '@portcullis/protocol';

/**
 * A refused protected request, on its way to the exception filter: the OAuth error (none when the request simply
 * carried no token) and every scope the operation needs, for the challenge's `scope` parameter.
 *
 * The HTTP status comes from the error code's entry in the protocol table (401 without an error), never from the
 * throw site.
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc6750#section-3 RFC 6750 Section 3}
 * @see {@link https://www.rfc-editor.org/rfc/rfc9728#section-5.1 RFC 9728 Section 5.1}
 */
export class BearerChallengeError extends Error {
  /** 401 when the request carried no credentials, else the error code's status. */
  readonly status: number;

  constructor(
    /** The RFC 6750 error; `undefined` when the request lacked any authentication (RFC 6750 Section 3.1). */
    readonly error: OAuthError | undefined,
    /** Every scope the refused operation needs, in the order the route declared them. */
    readonly requiredScopes: readonly string[] = [],
  ) {
    super(error?.message ?? 'no bearer token', { cause: error });
    this.name = 'BearerChallengeError';
    this.status = error?.status ?? 401;
  }
}
