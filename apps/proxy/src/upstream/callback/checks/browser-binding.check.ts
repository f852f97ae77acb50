// Rules kept: RFC 9700 4.7.1 (`state` bound to the user agent that started the flow) and the MCP security best
// practices, "Confused Deputy Problem": a callback is accepted only in the browser that consented, identified by the
// sign-in cookie set on the redirect upstream. A `state` (or a whole callback URL) carried to another browser, the login-CSRF and
// session-swapping attacks of RFC 6749 10.12, fails here.
import { CallbackRejection, established, type CallbackCheck } from '../callback-check.js';

/** The callback arrives in the browser whose sign-in cookie the state record names. */
export const browserBindingCheck: CallbackCheck = {
  name: 'browser-binding',
  async run(context) {
    const state = established(context, 'state');
    const signIn = established(context, 'signIn');
    const binding = context.signInCookies.read(context.cookies, state);
    if (binding === undefined || binding !== signIn.browserBinding) {
      throw new CallbackRejection(403, 'This sign-in was not started in this browser.');
    }
  },
};
