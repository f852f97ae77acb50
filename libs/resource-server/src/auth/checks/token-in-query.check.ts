/**
 * Rules kept here:
 * - MCP "Token Requirements": access tokens MUST NOT appear in the URI query string. RFC 9700 Section 4.3.2 forbids
 *   RFC 6750 Section 2.3's query method, because URLs end up in logs, histories and Referer headers.
 * - RFC 6750 Section 3.1: a request that tries is malformed: `invalid_request`, 400, whether or not it also sends
 *   a header (a token in two places is the same error).
 */
import { isRecord } from '../bearer-request.js';
import { invalidRequest, type RequestCheck } from './request-check.js';

/**
 * Rejects a request with an `access_token` query parameter, whatever its value.
 *
 * @throws OAuthError `invalid_request`
 * @see {@link https://www.rfc-editor.org/rfc/rfc9700#section-4.3.2 RFC 9700 Section 4.3.2}
 */
export const checkNoTokenInQuery: RequestCheck = (request) => {
  if (isRecord(request.query) && Object.hasOwn(request.query, 'access_token')) {
    throw invalidRequest(
      'Access tokens must be sent in the Authorization header, never in the query string.',
    );
  }
};
