import type { JsonValue } from './json.types.js';

/**
 * A successful token response (RFC 6749 section 5.1), as a grant handler returns it and as a client grant
 * strategy receives it. Members beyond the registered ones are allowed (for example RFC 8693
 * `issued_token_type`).
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-5.1
 */
export interface TokenResponse {
  readonly access_token: string;
  readonly token_type: string;
  readonly expires_in?: number;
  readonly refresh_token?: string;
  readonly scope?: string;
  readonly [parameter: string]: JsonValue | undefined;
}
