// Rules kept: no parameter holds a control character (other than tab, LF, CR) or a lone surrogate: NUL cannot be
// stored in PostgreSQL and a lone surrogate has no UTF-8 form (RFC 3629 3), so such a request is refused where it is
// parsed. It runs first and before the redirect URI is trusted: the page says why, nothing is sent to a client.
import type { AuthorizationCheck } from '../authorization-check.js';

/** Every parameter is plain text. */
export const plainTextCheck: AuthorizationCheck = {
  name: 'plain-text',
  beforeRedirect: true,
  run(context) {
    context.params.assertPlainText();
  },
};
