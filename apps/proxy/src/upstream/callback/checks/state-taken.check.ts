// Rules kept: RFC 6749 10.12 and RFC 9700 4.7.1 (`state` is used once): the record is removed by the first callback
// from the right browser, before the upstream is asked anything, so a replayed or concurrent second callback finds
// nothing and redeems nothing.
import { CallbackRejection, established, type CallbackCheck } from '../callback-check.js';

/** The sign-in record of `state` is taken now, by this callback alone. */
export const stateTakenCheck: CallbackCheck = {
  name: 'state-taken',
  async run(context) {
    const taken = await context.states.take(established(context, 'state'));
    if (taken.outcome !== 'taken') {
      throw new CallbackRejection(400, 'This sign-in response is unknown or was already used.');
    }
  },
};
