// Rules kept: RFC 6749 3.1 ("Request and response parameters MUST NOT be included more than once"): an
// authorization response with a repeated parameter (two `code`s, two `iss`es, two `state`s) is ambiguous and is
// refused before anything is looked up.
import { CallbackRejection, type CallbackCheck } from '../callback-check.js';

/** No response parameter appears twice. */
export const singleParametersCheck: CallbackCheck = {
  name: 'single-parameters',
  async run(context) {
    if (context.params.repeated.length > 0) {
      throw new CallbackRejection(400, 'The sign-in response repeats a parameter.');
    }
  },
};
