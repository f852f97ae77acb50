/**
 * The client's check of the `iss` authorization response parameter, before any code is redeemed.
 *
 * Rules kept here:
 * - RFC 9207 Section 2.4 and MCP 2026-07-28 "Authorization Response Validation": the table below, applied before
 *   the code is sent to any token endpoint.
 *
 *   | authorization_response_iss_parameter_supported | iss in response | result                   |
 *   |------------------------------------------------|-----------------|--------------------------|
 *   | true                                           | present         | compare                  |
 *   | true                                           | absent          | reject (`iss_missing`)   |
 *   | false or absent                                | present         | compare                  |
 *   | false or absent                                | absent          | proceed                  |
 *
 * - MCP 2026-07-28 "Authorization Response Validation" and RFC 9207 Section 2.4: the comparison is a simple string
 *   comparison against the issuer recorded with the PKCE verifier and state: no case folding, default-port elision,
 *   trailing-slash or percent-encoding normalisation. The value compared is the form-decoded one (what
 *   `URLSearchParams.get('iss')` returns).
 * - A present but empty `iss` is present: it is compared, and mismatches.
 * - On a failure the caller MUST NOT act on or display `error`, `error_description` or `error_uri` of the
 *   response (MCP 2026-07-28 "Authorization Response Validation", RFC 9207 Section 4 on mix-up attacks).
 */

/**
 * Why an authorization response failed the issuer check: `iss` required but absent, or not the recorded issuer.
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc9207#section-2.4 RFC 9207 Section 2.4}
 */
export type IssuerCheckFailure = 'iss_missing' | 'iss_mismatch';

/**
 * The result of {@link checkAuthorizationResponseIssuer}.
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc9207#section-2.4 RFC 9207 Section 2.4}
 */
export type IssuerCheckResult = { ok: true } | { ok: false; reason: IssuerCheckFailure };

/**
 * Applies the table of MCP 2026-07-28 "Authorization Response Validation" (RFC 9207 Section 2.4) to an
 * authorization response.
 *
 * - `issParameterSupported`: the authorization server metadata's `authorization_response_iss_parameter_supported`
 *   (absent counts as `false`).
 * - `iss`: the form-decoded `iss` of the response; `undefined` or `null` when the response has none.
 * - `expectedIssuer`: the issuer recorded, from validated metadata, before the user-agent was redirected. An empty
 *   or missing one throws `TypeError`: it is a bug in the caller, and would otherwise compare equal to `iss=`.
 *
 * @example
 * ```ts
 * checkAuthorizationResponseIssuer({ issParameterSupported: true, iss: null, expectedIssuer: 'https://as.example' });
 * // { ok: false, reason: 'iss_missing' }
 * ```
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc9207#section-2.4 RFC 9207 Section 2.4}
 */
export function checkAuthorizationResponseIssuer(input: {
  issParameterSupported?: boolean;
  iss?: string | null;
  expectedIssuer: string;
}): IssuerCheckResult {
  const { issParameterSupported, iss, expectedIssuer } = input;
  // A missing recorded issuer is a bug in the caller; comparing against '' would let `iss=` through.
  if (typeof expectedIssuer !== 'string' || expectedIssuer === '') {
    throw new TypeError('expectedIssuer must be the non-empty issuer recorded before the redirect');
  }
  if (iss === undefined || iss === null) {
    return issParameterSupported === true ? { ok: false, reason: 'iss_missing' } : { ok: true };
  }
  return typeof iss === 'string' && iss === expectedIssuer
    ? { ok: true }
    : { ok: false, reason: 'iss_mismatch' };
}
