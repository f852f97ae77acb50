/**
 * Reading the bearer credential from the `Authorization` header.
 *
 * Rules kept here:
 * - RFC 6750 Section 2.1: `credentials = "Bearer" 1*SP b64token`; the scheme is case-insensitive (RFC 9110
 *   Section 11.1). A `Bearer` credential that does not match is a malformed request: `invalid_request`, 400.
 * - RFC 9110 Section 11.6.2 allows one set of credentials; several `Authorization` header fields are a token in
 *   more than one place (RFC 6750 Section 3.1): `invalid_request`. Node keeps only the first such field in
 *   `headers`, so they are counted in the raw header list.
 * - A header with another scheme (Basic, DPoP, ...) carries no bearer token: the request is treated as
 *   unauthenticated and gets the 401 challenge that tells the client what to send (RFC 6750 Section 3).
 */
import type { BearerRequest } from '../bearer-request.js';
import { invalidRequest } from './request-check.js';

const BEARER_CREDENTIALS = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i;
const BEARER_SCHEME = /^Bearer(?:\s|$)/i;
// An RFC 9110 auth-scheme is a token; a value that does not even start with one is not credentials at all.
const AUTH_SCHEME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+(?: |$)/;

function countAuthorizationFields(request: BearerRequest): number {
  const raw = request.raw?.rawHeaders;
  if (!raw) return request.headers['authorization'] === undefined ? 0 : 1;
  let count = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]?.toLowerCase() === 'authorization') count += 1;
  return count;
}

/**
 * The bearer token of the request's `Authorization` header, or `undefined` when the request carries no bearer
 * credentials.
 *
 * @throws OAuthError `invalid_request` for several `Authorization` fields or a malformed value.
 * @see {@link https://www.rfc-editor.org/rfc/rfc6750#section-2.1 RFC 6750 Section 2.1}
 */
export function readBearerToken(request: BearerRequest): string | undefined {
  if (countAuthorizationFields(request) > 1) {
    throw invalidRequest('The request must carry exactly one Authorization header.');
  }
  const header = request.headers['authorization'];
  if (header === undefined) return undefined;
  if (typeof header !== 'string' || !AUTH_SCHEME.test(header)) {
    throw invalidRequest('The Authorization header is malformed.');
  }
  if (!BEARER_SCHEME.test(header)) return undefined;
  const match = BEARER_CREDENTIALS.exec(header);
  if (!match) throw invalidRequest('The Authorization header must be "Bearer" followed by one access token.');
  return match[1];
}
