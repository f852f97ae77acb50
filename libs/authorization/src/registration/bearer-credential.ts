// Rules kept: RFC 6750 2.1 (a bearer token travels in the Authorization header with the Bearer scheme) and 3.1 (a
// missing or wrong token is 401 `invalid_token` with a `WWW-Authenticate: Bearer` challenge that carries error
// details only when a token was sent). Shared by the registration endpoint's initial access token (RFC 7591 3) and
// its registration access token (RFC 7592 2).
import { formatWwwAuthenticate, OAuthError } from '@portcullis/protocol';

const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/** The bearer token of an `Authorization` header, or `undefined` when there is none in that form. */
export function presentedBearerToken(authorization: string | undefined): string | undefined {
  return BEARER.exec(authorization ?? '')?.[1];
}

/**
 * The 401 `invalid_token` error for a missing (`description` undefined) or refused bearer token, carrying the
 * Bearer challenge in its `WWW-Authenticate` header (which the exception filter writes).
 *
 * @see https://www.rfc-editor.org/rfc/rfc6750#section-3.1
 */
export function refusedBearer(missing: string, description: string | undefined): OAuthError {
  // A request without any credentials gets a challenge without error details.
  const params: Record<string, string> =
    description === undefined ? {} : { error: 'invalid_token', error_description: description };
  return new OAuthError('invalid_token', description ?? missing, {
    headers: { 'www-authenticate': formatWwwAuthenticate({ scheme: 'Bearer', params }) },
  });
}
