// Rules kept: RFC 6749 3.1 ("Request and response parameters MUST NOT be included more than once"); RFC 8707 2
// allows `resource` several times, which the resource check decides on.
import type { AuthorizationCheck } from '../authorization-check.js';

/** No parameter other than `resource` is repeated. */
export const singleParametersCheck: AuthorizationCheck = {
  name: 'single-parameters',
  beforeRedirect: false,
  run(context) {
    context.params.assertNoRepeats();
  },
};
