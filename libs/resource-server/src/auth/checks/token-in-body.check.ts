/**
 * Rules kept here:
 * - This resource accepts the `Authorization` header method only (RFC 6750 Section 2.1; its PRM says
 *   `bearer_methods_supported: ["header"]`, RFC 9728 Section 2). A form-encoded `access_token` (RFC 6750
 *   Section 2.2) is refused rather than ignored, so the client learns at once instead of seeing a 401 for a token
 *   it did send.
 * - RFC 6750 Section 3.1: "uses more than one method for including an access token" is `invalid_request`; a token
 *   in the body beside one in the header is exactly that.
 */
import { isRecord } from '../bearer-request.js';
import { invalidRequest, type RequestCheck } from './request-check.js';

/**
 * Rejects a request whose parsed body has an `access_token` member.
 *
 * @throws OAuthError `invalid_request`
 * @see {@link https://www.rfc-editor.org/rfc/rfc6750#section-2.2 RFC 6750 Section 2.2}
 */
export const checkNoTokenInBody: RequestCheck = (request) => {
  if (isRecord(request.body) && Object.hasOwn(request.body, 'access_token')) {
    throw invalidRequest(
      'Access tokens must be sent in the Authorization header, never in the request body.',
    );
  }
};
