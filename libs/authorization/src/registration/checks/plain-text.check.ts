// Rules kept: RFC 7591 3.2.2 (metadata the server cannot accept is `invalid_client_metadata`): no string and no
// member name anywhere in the document holds a control character (other than tab, LF, CR) or a lone surrogate. NUL
// cannot be stored in PostgreSQL and a lone surrogate has no UTF-8 form (RFC 3629 3); JSON can carry both
// (`"\u0000"`, `"\ud800"`), so they are refused here, before any value is read, not when the row is written.
import { findUnsafeJsonText, OAuthError } from '@portcullis/protocol';
import type { RegistrationCheck } from '../registration-check.js';

/** Every string of the registration request is plain text. */
export const plainTextCheck: RegistrationCheck = {
  name: 'plain-text',
  run({ body }) {
    const at = findUnsafeJsonText(body);
    if (at !== undefined) {
      throw new OAuthError('invalid_client_metadata', `${at} contains a control character`);
    }
  },
};
