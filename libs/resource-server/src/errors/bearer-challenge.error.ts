import type { OAuthError } from '@portcullis/protocol';

/**
 * Errors a resource answers with 401 although the protocol table gives them 400 (where an authorization server
 * answers them): a proof of possession that fails at a resource is an authentication failure (RFC 9449
 * Section 7.1), and a resource asks for its nonce with a 401 challenge (RFC 9449 Section 9).
 */
const RESOURCE_STATUS: Readonly<Record<string, number>> = {
  invalid_dpop_proof: 401,
  use_dpop_nonce: 401,
};

/**
 * A refused protected request, on its way to the exception filter: the OAuth error (none when the request simply
 * carried no token), every scope the operation needs, for the challenge's `scope` parameter, and the scheme the
 * request presented its token with, whose challenge carries the error.
 *
 * The HTTP status comes from the error code's entry in the protocol table (401 without an error), never from the
 * throw site; the proof-of-possession errors are 401 at a resource (RFC 9449 Sections 7.1 and 9).
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc6750#section-3 RFC 6750 Section 3}
 * @see {@link https://www.rfc-editor.org/rfc/rfc9728#section-5.1 RFC 9728 Section 5.1}
 * @see {@link https://www.rfc-editor.org/rfc/rfc9449#section-7.1 RFC 9449 Section 7.1}
 */
export class BearerChallengeError extends Error {
  /** 401 when the request carried no credentials, else the error code's status at a resource. */
  readonly status: number;

  constructor(
    /** The RFC 6750 error; `undefined` when the request lacked any authentication (RFC 6750 Section 3.1). */
    readonly error: OAuthError | undefined,
    /** Every scope the refused operation needs, in the order the route declared them. */
    readonly requiredScopes: readonly string[] = [],
    /**
     * The scheme the request presented its token with: `bearer`, or `proof` for the composed proof-of-possession
     * scheme (`DPoP`). The error goes on that scheme's challenge.
     */
    readonly presentedWith: 'bearer' | 'proof' = 'bearer',
  ) {
    super(error?.message ?? 'no bearer token', { cause: error });
    this.name = 'BearerChallengeError';
    this.status = error === undefined ? 401 : (RESOURCE_STATUS[error.code] ?? error.status);
  }
}
