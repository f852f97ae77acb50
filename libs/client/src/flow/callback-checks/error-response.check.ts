/**
 * Rules kept here:
 * - RFC 6749 Section 4.1.2.1: a response with `error` is an error response; it is reported with the server's
 *   `error`, `error_description` and `error_uri` (`authorization_denied`).
 * - MCP 2026-07-28 "Authorization Response Validation": this check runs only after `state` and `iss` passed, the
 *   one point from which those parameters may be shown.
 */
import { PortcullisError } from '../../errors/portcullis-error.js';
import type { CallbackCheck } from './callback-check.js';

/**
 * Turns an error response into `authorization_denied`.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.1.2.1
 */
export const errorResponseCheck: CallbackCheck = (callback, pending) => {
  if (callback.error === undefined) return;
  throw new PortcullisError(
    'authorization_denied',
    `The authorization server ${pending.issuer} answered ${callback.error}` +
      `${callback.errorDescription === undefined ? '' : `: ${callback.errorDescription}`}.`,
    { issuer: pending.issuer, error: callback.error },
    {
      authorizationServerError: {
        error: callback.error,
        ...(callback.errorDescription === undefined ? {} : { errorDescription: callback.errorDescription }),
        ...(callback.errorUri === undefined ? {} : { errorUri: callback.errorUri }),
      },
    },
  );
};
