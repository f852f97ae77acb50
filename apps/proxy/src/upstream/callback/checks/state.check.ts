// Rules kept: RFC 6749 10.12 and RFC 9700 4.7.1 (`state` is a one-time CSRF token: a callback without it, with
// one never issued, with one already used, or with one older than its lifetime is refused); the MCP security
// best practices, "Confused Deputy Problem" (state single-use, short-lived: ours lives 10 minutes). The
// record is removed by the first callback that presents its `state`, whatever happens next, so a replay finds
// nothing.
import { CallbackRejection, type CallbackCheck } from '../callback-check.js';

/** `state` is present once and names a live sign-in record, which is taken. */
export const stateCheck: CallbackCheck = {
  name: 'state',
  async run(context) {
    const state = context.params.get('state');
    if (!state) throw new CallbackRejection(400, 'The sign-in response carries no state.');
    const taken = await context.states.take(state);
    if (taken.outcome === 'unknown') {
      throw new CallbackRejection(400, 'This sign-in response is unknown or was already used.');
    }
    if (taken.outcome === 'expired')
      throw new CallbackRejection(400, 'This sign-in took too long and has expired.');
    context.state = state;
    context.signIn = taken.state;
  },
};
