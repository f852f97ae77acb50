// Rules kept: RFC 7591 3 (an authorization server may require an initial access token, an OAuth 2.0 bearer token
// presented at the registration endpoint), RFC 6750 2.1 (in the Authorization header with the Bearer scheme) and
// 3.1 (a missing or wrong token is 401 `invalid_token` with a `WWW-Authenticate: Bearer` challenge, with error
// details only when a token was sent). Compared in constant time (`constantTimeEqual`, over SHA-256 digests), so
// neither its content nor its length leaks through timing.
import { constantTimeEqual } from '@portcullis/protocol';
import { presentedBearerToken, refusedBearer } from './bearer-credential.js';

/**
 * Throws 401 `invalid_token` (and sets the Bearer challenge on the reply) unless `authorization` carries the
 * configured initial access token. Does nothing when none is configured.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7591#section-3
 * @see https://www.rfc-editor.org/rfc/rfc6750#section-3.1
 */
export function checkInitialAccessToken(
  expected: string | undefined,
  authorization: string | undefined,
): void {
  if (expected === undefined) return;
  const presented = presentedBearerToken(authorization);
  if (presented !== undefined && constantTimeEqual(presented, expected)) return;
  throw refusedBearer(
    'an initial access token is required',
    presented === undefined ? undefined : 'the initial access token is invalid',
  );
}
