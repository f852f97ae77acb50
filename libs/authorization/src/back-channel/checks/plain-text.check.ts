// Rules kept: no parameter holds a control character (other than tab, LF, CR) or a lone surrogate: NUL cannot be
// stored in PostgreSQL and a lone surrogate has no UTF-8 form (RFC 3629 3), so such a request is refused where it is
// parsed, as RFC 6749 5.2 `invalid_request`.
import { establishedParameters, type BackChannelCheck } from '../back-channel-check.js';

/** Every form parameter is plain text. */
export const plainTextCheck: BackChannelCheck = {
  name: 'plain-text',
  run(context) {
    establishedParameters(context).assertPlainText();
  },
};
