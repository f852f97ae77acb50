/**
 * What a refused request is answered, whichever framework writes the answer.
 *
 * Rules kept here:
 * - RFC 6750 Section 3: a refused bearer request gets a `WWW-Authenticate: Bearer` challenge (see
 *   `bearer-challenge.ts`; with a proof-of-possession extension, its `DPoP` challenge too) and, when there is an
 *   error code, the RFC 6749 Section 5.2 JSON body `{ error, error_description }`; a request with no credentials
 *   gets the challenge alone (RFC 6750 Section 3.1 example). The status comes from the protocol's code-to-status
 *   table (a proof-of-possession error is 401 at a resource, RFC 9449 Section 7.1).
 * - RFC 9449 Sections 8 and 9: the response header fields an error travels with (`DPoP-Nonce` with
 *   `use_dpop_nonce`; `Retry-After` with `temporarily_unavailable`) are written with it.
 * - Every error response is `Cache-Control: no-store`: it depends on the credentials sent.
 * - `server_error`, and anything unexpected, is a 500 with a generic description: its cause is the caller's to log,
 *   never sent. A header field an error travels with that HTTP cannot carry (RFC 9110 Section 5.5: no CR, LF or NUL
 *   in a value) is such a failure: refused while the response is built, before anything is written.
 */
import { validateHeaderName, validateHeaderValue } from 'node:http';
import { OAuthError, type OAuthErrorResponseBody } from '@portcullis/protocol';
import type { ResourceServerConfig } from '../config/resource-server.config.js';
import { bearerChallenge } from './bearer-challenge.js';
import type { BearerChallengeError } from './bearer-challenge.error.js';

/** An error response, as any framework writes it: status, header fields (lowercase names), JSON body if any. */
export interface RefusalResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: OAuthErrorResponseBody;
}

/**
 * The generic 500: what anything unexpected is answered with.
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc6749#section-5.2 RFC 6749 Section 5.2}
 */
export function serverErrorResponse(): RefusalResponse {
  const error = new OAuthError('server_error', 'The server could not complete the request.');
  return { status: error.status, headers: { 'cache-control': 'no-store' }, body: error.toResponseBody() };
}

/**
 * The response to a refused request: status, challenge and body.
 *
 * @throws Error when an extension's challenge parameters break their contract (the caller answers 500).
 * @see {@link https://www.rfc-editor.org/rfc/rfc6750#section-3 RFC 6750 Section 3}
 * @see {@link https://www.rfc-editor.org/rfc/rfc9728#section-5.1 RFC 9728 Section 5.1}
 */
export function refusalResponse(
  config: ResourceServerConfig,
  refusal: BearerChallengeError,
): RefusalResponse {
  const { error, status } = refusal;
  if (error?.code === 'server_error') return serverErrorResponse();
  const challenge = bearerChallenge({
    status,
    ...(error ? { error } : {}),
    requiredScopes: refusal.requiredScopes,
    resource: config.resource,
    metadataUrl: config.metadataUrl,
    scopesSupported: config.scopesSupported,
    revision: config.revision,
    extensions: config.extensions,
    presentedWith: refusal.presentedWith,
  });
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(error?.headers ?? {})) {
    // A field Node would refuse to write (a CR or LF an extension let into a value) throws here, where the caller
    // answers 500, not once the answer is half written.
    validateHeaderName(name);
    validateHeaderValue(name, value);
    headers[name.toLowerCase()] = value;
  }
  headers['cache-control'] = 'no-store';
  if (challenge) {
    validateHeaderValue('www-authenticate', challenge);
    headers['www-authenticate'] = challenge;
  }
  return { status, headers, ...(error ? { body: error.toResponseBody() } : {}) };
}
