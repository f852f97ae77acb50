/**
 * Checking the authorization response before its code is redeemed, with the checks in this order:
 *
 * 1. the callback is at this request's redirect URI and repeats no parameter (`invalid_callback`);
 * 2. `state` (`state_mismatch`, MCP "Open Redirection");
 * 3. `iss` (`iss_missing`, `iss_mismatch`, RFC 9207 Section 2.4 under every revision; MCP 2026-07-28
 *    "Authorization Response Validation");
 * 4. an error response, shown only now (`authorization_denied`);
 * 5. a `code` is present (`invalid_callback`).
 *
 * Rules kept here:
 * - MCP 2026-07-28 "Authorization Flow Steps" and "Authorization Response Validation": all of these run before the
 *   code is sent to any token endpoint.
 * - RFC 9207 Section 2.4: `iss` is compared after form-decoding (URLSearchParams decodes).
 * - RFC 6749 Section 3.1: a parameter sent more than once makes the response invalid (two parsers could pick
 *   different values), so the response is discarded before anything is read from it.
 * - What openid-client receives to redeem the code is rebuilt from the checked values only, at exactly the
 *   redirect URI of the request (RFC 6749 Section 4.1.3: the token request repeats it).
 */
import type { Revision } from '@portcullis/revisions';
import { PortcullisError } from '../errors/portcullis-error.js';
import { isCallbackUrl } from '../user-agent/user-agent.js';
import type { PendingAuthorization } from './authorization-request.js';
import type { CallbackCheck, CallbackParameters } from './callback-checks/callback-check.js';
import { codeCheck } from './callback-checks/code.check.js';
import { errorResponseCheck } from './callback-checks/error-response.check.js';
import { issCheck } from './callback-checks/iss.check.js';
import { stateCheck } from './callback-checks/state.check.js';

/**
 * The checks of an authorization response, in the order they run.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9207#section-2.4
 */
export const CALLBACK_CHECKS: readonly CallbackCheck[] = Object.freeze([
  stateCheck,
  issCheck,
  errorResponseCheck,
  codeCheck,
]);

const READ_PARAMETERS = ['code', 'state', 'iss', 'error', 'error_description', 'error_uri'] as const;

/**
 * Reads the callback URL: refuses one that is not at the redirect URI or repeats a parameter.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-3.1
 */
export function readCallback(callbackUrl: string, redirectUri: string): CallbackParameters {
  let url: URL;
  try {
    url = new URL(callbackUrl);
  } catch {
    throw new PortcullisError('invalid_callback', 'The user-agent returned something that is not a URL.');
  }
  if (!isCallbackUrl(callbackUrl, redirectUri)) {
    throw new PortcullisError(
      'invalid_callback',
      `The authorization response did not come back to ${redirectUri}.`,
      {
        redirectUri,
      },
    );
  }
  const values: Record<string, string> = {};
  for (const name of READ_PARAMETERS) {
    const all = url.searchParams.getAll(name);
    if (all.length > 1) {
      throw new PortcullisError(
        'invalid_callback',
        `The authorization response repeats the "${name}" parameter; it was discarded.`,
        {
          parameter: name,
        },
      );
    }
    if (all[0] !== undefined) values[name] = all[0];
  }
  return {
    ...(values['code'] === undefined ? {} : { code: values['code'] }),
    ...(values['state'] === undefined ? {} : { state: values['state'] }),
    ...(values['iss'] === undefined ? {} : { iss: values['iss'] }),
    ...(values['error'] === undefined ? {} : { error: values['error'] }),
    ...(values['error_description'] === undefined ? {} : { errorDescription: values['error_description'] }),
    ...(values['error_uri'] === undefined ? {} : { errorUri: values['error_uri'] }),
  };
}

/**
 * Runs every check and returns the URL openid-client redeems: the redirect URI with the checked `code`, `state`
 * and (when the response carried it) `iss`.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9207#section-2.4
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.1.2
 */
export function checkAuthorizationResponse(
  callbackUrl: string,
  pending: PendingAuthorization,
  revision: Revision,
): URL {
  const callback = readCallback(callbackUrl, pending.redirectUri);
  for (const check of CALLBACK_CHECKS) check(callback, pending, revision);
  const checked = new URL(pending.redirectUri);
  checked.search = '';
  checked.searchParams.set('code', callback.code as string);
  checked.searchParams.set('state', pending.state);
  if (callback.iss !== undefined) checked.searchParams.set('iss', callback.iss);
  return checked;
}
