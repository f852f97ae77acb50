/**
 * Rules kept here:
 * - RFC 9207 Section 2.4 (and MCP 2026-07-28 "Authorization Response Validation", which repeats it), under every
 *   revision: whenever the server advertises `authorization_response_iss_parameter_supported` or the response
 *   carries `iss`, the table of `checkAuthorizationResponseIssuer` applies, a simple string comparison of the
 *   form-decoded `iss` with the issuer recorded before the redirect: no case folding, default-port elision,
 *   trailing-slash or percent-encoding normalisation (`iss_missing`, `iss_mismatch`). A server that neither
 *   advertises nor sends `iss` passes.
 * - On a failure, `error`, `error_description` and `error_uri` are neither shown nor acted on: the thrown error
 *   carries only the recorded issuer, never what the response said.
 */
import { checkAuthorizationResponseIssuer } from '@portcullis/protocol';
import { PortcullisError } from '../../errors/portcullis-error.js';
import type { CallbackCheck } from './callback-check.js';

/**
 * The RFC 9207 issuer check.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9207#section-2.4
 */
export const issCheck: CallbackCheck = (callback, pending) => {
  const result = checkAuthorizationResponseIssuer({
    issParameterSupported: pending.issParameterSupported,
    iss: callback.iss,
    expectedIssuer: pending.issuer,
  });
  if (result.ok) return;
  throw result.reason === 'iss_missing'
    ? new PortcullisError(
        'iss_missing',
        `The authorization response has no iss although ${pending.issuer} advertises it; it was discarded (RFC 9207).`,
        { issuer: pending.issuer },
      )
    : new PortcullisError(
        'iss_mismatch',
        `The authorization response names another issuer than ${pending.issuer}; it was discarded (RFC 9207).`,
        { issuer: pending.issuer },
      );
};
