/**
 * Rules kept here:
 * - MCP "Open Redirection" and RFC 6749 Section 10.12: the client discards a response whose `state` is missing or
 *   differs from the value it sent (`state_mismatch`); the comparison takes constant time.
 * - MCP 2026-07-28 "Authorization Response Validation" / RFC 9207 Section 4: nothing from a response that failed
 *   this check is shown or acted on, so the error carries none of its parameters.
 */
import { constantTimeEqual } from '@portcullis/protocol';
import { PortcullisError } from '../../errors/portcullis-error.js';
import type { CallbackCheck } from './callback-check.js';

/**
 * The `state` check.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-10.12
 */
export const stateCheck: CallbackCheck = (callback, pending) => {
  if (callback.state === undefined || !constantTimeEqual(callback.state, pending.state)) {
    throw new PortcullisError(
      'state_mismatch',
      callback.state === undefined
        ? 'The authorization response has no state; it was discarded.'
        : 'The authorization response carries a state this client did not send; it was discarded.',
    );
  }
};
