/**
 * Rules kept here: RFC 6749 Section 4.1.2: a successful response carries a non-empty `code`.
 */
import { PortcullisError } from '../../errors/portcullis-error.js';
import type { CallbackCheck } from './callback-check.js';

/**
 * Requires the authorization code.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.1.2
 */
export const codeCheck: CallbackCheck = (callback) => {
  if (callback.code === undefined || callback.code === '') {
    throw new PortcullisError(
      'invalid_callback',
      'The authorization response has neither a code nor an error.',
    );
  }
};
