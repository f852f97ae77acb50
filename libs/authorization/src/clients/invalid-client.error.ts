import { OAuthError } from '@portcullis/protocol';

/** Thrown for a failed client authentication: 401 `invalid_client` with `WWW-Authenticate: Basic` (RFC 6749 5.2). */
export class InvalidClientError extends OAuthError {
  constructor(description: string) {
    super('invalid_client', description);
  }
}
