/**
 * What a request with a made-up token somewhere other than the `Authorization` header tells (RFC 6750 2.2, 2.3 and
 * 3.1; MCP "Access Token Usage": tokens MUST NOT be in the query string). Probed with a made-up token, so that no
 * live token ends up in a URL or a log: a server that looks there says `invalid_token` about it; one that does not
 * answers as to a request without a token.
 */
import { finding, type CheckReference, type Finding } from '../doctor-check.js';
import { authChallenge } from '../doctor-context.js';

/**
 * Refused as carrying no token (401 without an error) or as a bad request (400 `invalid_request`) passes;
 * `invalid_token` (the server read it) or a success fails; anything else cannot tell.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6750#section-3.1
 */
export function placementFinding(
  where: string,
  response: Response | undefined,
  reference: CheckReference,
): Finding {
  if (response === undefined)
    return finding('warn', `A request with a token ${where} got no answer.`, reference);
  const error = authChallenge(response)?.params['error'];
  if (response.ok || error === 'invalid_token') {
    const seen = response.ok
      ? `was accepted (HTTP ${response.status})`
      : 'was read and checked (401 invalid_token)';
    return finding(
      'fail',
      `A made-up token ${where} ${seen}: the server takes tokens from there, where they end up in logs.`,
      reference,
    );
  }
  if (
    (response.status === 401 && error === undefined) ||
    (response.status === 400 && error === 'invalid_request')
  ) {
    return finding(
      'pass',
      `A token ${where} is not used (HTTP ${response.status}${error ? ` ${error}` : ', as without a token'}).`,
      reference,
    );
  }
  return finding(
    'warn',
    `A request with a token ${where} got HTTP ${response.status}${error ? ` ${error}` : ''}: cannot tell whether the server reads tokens there.`,
    reference,
  );
}

/** A token that is no one's, for the placement probes. */
export function decoyToken(): string {
  return `portcullis-doctor-${globalThis.crypto.randomUUID()}`;
}
