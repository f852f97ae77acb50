import { OAuthError } from '@portcullis/protocol';
import type { BearerRequest } from '../bearer-request.js';

/** One rule about where and how a request may carry its access token; it throws `invalid_request` when broken. */
export type RequestCheck = (request: BearerRequest) => void;

/**
 * The one way a request check rejects: `invalid_request` (HTTP 400).
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc6750#section-3.1 RFC 6750 Section 3.1}
 */
export function invalidRequest(description: string): OAuthError {
  return new OAuthError('invalid_request', description);
}
