// Rules kept: RFC 6749 10.12 and RFC 9700 4.7.1 (`state` is a one-time CSRF token: a callback without it, with
// one never issued, with one already used, or with one older than its lifetime is refused); the MCP security
// best practices, "Confused Deputy Problem" (state single-use, short-lived: ours lives 10 minutes). The record is
// only read here; it is taken (`state-taken.check.ts`) once the callback is known to arrive in the browser that
// went upstream, so a stranger holding the callback URL cannot use it up.
import { CallbackRejection, type CallbackCheck } from '../callback-check.js';

/** `state` is present once and names a live sign-in record. */
export const stateCheck: CallbackCheck = {
  name: 'state',
  async run(context) {
    const state = context.params.get('state');
    if (!state) throw new CallbackRejection(400, 'The sign-in response carries no state.');
    const found = await context.states.peek(state);
    if (found.outcome === 'unknown') {
      throw new CallbackRejection(400, 'This sign-in response is unknown or was already used.');
    }
    if (found.outcome === 'expired')
      throw new CallbackRejection(400, 'This sign-in took too long and has expired.');
    context.state = state;
    context.signIn = found.state;
  },
};
