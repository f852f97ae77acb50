// Rules kept: `UPSTREAM_ALLOWED` is checked after the upstream said who signed in and before anything is stored or
// any code issued; a person it does not admit gets a page saying so (403), no local user, no upstream tokens kept,
// and a `sign_in.failed` security event. A membership the provider cannot answer fails the sign-in (fail closed).
import { CallbackRejection, established, type CallbackCheck } from '../callback-check.js';

/** The signed-in person is among those `UPSTREAM_ALLOWED` admits (everyone, when it is unset). */
export const allowedUserCheck: CallbackCheck = {
  name: 'allowed-user',
  async run(context) {
    if (!(await established(context, 'upstream').admits(established(context, 'result')))) {
      throw new CallbackRejection(
        403,
        'Your account is not among those allowed to use this service. Ask its administrator to admit you.',
      );
    }
  },
};
