/**
 * Reading the access token from the `Authorization` header.
 *
 * Rules kept here:
 * - RFC 6750 Section 2.1: `credentials = "Bearer" 1*SP b64token`; the scheme is case-insensitive (RFC 9110
 *   Section 11.1). A `Bearer` credential that does not match is a malformed request: `invalid_request`, 400.
 * - RFC 9449 Section 7.1: with a proof-of-possession extension composed, `<scheme> b64token` for its scheme
 *   (`DPoP`) is read the same way, with the same syntax and the same refusal of a malformed value.
 * - RFC 9110 Section 11.6.2 allows one set of credentials; several `Authorization` header fields are a token in
 *   more than one place (RFC 6750 Section 3.1): `invalid_request`. Node keeps only the first such field in
 *   `headers`, so they are counted in the raw header list.
 * - A header with another scheme (Basic, or DPoP when no extension provides it, ...) carries no access token this
 *   resource reads: the request is treated as unauthenticated and gets the 401 challenge that tells the client what
 *   to send (RFC 6750 Section 3).
 */
import type { BearerRequest } from '../bearer-request.js';
import { invalidRequest } from './request-check.js';

// RFC 6750 Section 2.1 b64token, after one or more spaces.
const CREDENTIALS = /^([!#$%&'*+\-.^_`|~0-9A-Za-z]+) +([A-Za-z0-9\-._~+/]+=*)$/;
// An RFC 9110 auth-scheme is a token; a value that does not even start with one is not credentials at all.
const AUTH_SCHEME = /^([!#$%&'*+\-.^_`|~0-9A-Za-z]+)(?: |$)/;

/** The access token a request presents and the scheme it presents it with. */
export interface PresentedCredentials {
  readonly token: string;
  /**
   * `bearer` for `Authorization: Bearer`; `proof` for the composed proof-of-possession scheme (RFC 9449
   * Section 7.1: `DPoP`).
   */
  readonly scheme: 'bearer' | 'proof';
}

function countAuthorizationFields(request: BearerRequest): number {
  const raw = request.raw?.rawHeaders;
  if (!raw) return request.headers['authorization'] === undefined ? 0 : 1;
  let count = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]?.toLowerCase() === 'authorization') count += 1;
  return count;
}

/**
 * The access token of the request's `Authorization` header and its scheme, or `undefined` when the request
 * carries no credentials this resource reads. `proofScheme` is the composed proof-of-possession scheme, if any.
 *
 * @throws OAuthError `invalid_request` for several `Authorization` fields or a malformed value.
 * @see {@link https://www.rfc-editor.org/rfc/rfc6750#section-2.1 RFC 6750 Section 2.1}
 * @see {@link https://www.rfc-editor.org/rfc/rfc9449#section-7.1 RFC 9449 Section 7.1}
 */
export function readAccessToken(
  request: BearerRequest,
  proofScheme?: string,
): PresentedCredentials | undefined {
  if (countAuthorizationFields(request) > 1) {
    throw invalidRequest('The request must carry exactly one Authorization header.');
  }
  const header = request.headers['authorization'];
  if (header === undefined) return undefined;
  const scheme = typeof header === 'string' ? AUTH_SCHEME.exec(header)?.[1]?.toLowerCase() : undefined;
  if (scheme === undefined) throw invalidRequest('The Authorization header is malformed.');
  const presented =
    scheme === 'bearer'
      ? ('bearer' as const)
      : proofScheme !== undefined && scheme === proofScheme.toLowerCase()
        ? ('proof' as const)
        : undefined;
  if (presented === undefined) return undefined;
  const token = CREDENTIALS.exec(header as string)?.[2];
  if (token === undefined) {
    const name = presented === 'bearer' ? 'Bearer' : (proofScheme as string);
    throw invalidRequest(`The Authorization header must be "${name}" followed by one access token.`);
  }
  return { token, scheme: presented };
}

/**
 * The bearer token of the request's `Authorization` header, or `undefined` when the request carries no bearer
 * credentials.
 *
 * @throws OAuthError `invalid_request` for several `Authorization` fields or a malformed value.
 * @see {@link https://www.rfc-editor.org/rfc/rfc6750#section-2.1 RFC 6750 Section 2.1}
 */
export function readBearerToken(request: BearerRequest): string | undefined {
  return readAccessToken(request)?.token;
}
