// Rules kept: RFC 6749 3.1 ("Request and response parameters MUST NOT be included more than once"): an
// authorization response with a repeated parameter (two `code`s, two `iss`es, two `state`s) is ambiguous and is
// refused before anything is looked up; so is one whose parameters hold a control character or a lone surrogate
// (`hasUnsafeCharacter`: NUL cannot be stored, a lone surrogate has no UTF-8 form, RFC 3629 3).
import { CallbackRejection, type CallbackCheck } from '../callback-check.js';

/** No response parameter appears twice, and every one is plain text. */
export const singleParametersCheck: CallbackCheck = {
  name: 'single-parameters',
  async run(context) {
    if (context.params.repeated.length > 0) {
      throw new CallbackRejection(400, 'The sign-in response repeats a parameter.');
    }
    if (context.params.unsafe !== undefined) {
      throw new CallbackRejection(400, 'The sign-in response holds a control character.');
    }
  },
};
