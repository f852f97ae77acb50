// Rules kept: a connect ticket is used once (its `jti`, RFC 7519 4.1.7, recorded for every instance): the first
// callback that completes it uses it up, after every other check passed and before anything is stored, so a second
// or concurrent completion of the same link stores nothing.
import { CallbackRejection, established, type CallbackCheck } from '../callback-check.js';

/** The connect ticket of a `connect` sign-in is used up now, by this callback alone. */
export const connectTicketTakenCheck: CallbackCheck = {
  name: 'connect-ticket-taken',
  async run(context) {
    if (established(context, 'signIn').purpose !== 'connect') return;
    if (!(await context.connectTickets.useUp(established(context, 'connectTicket')))) {
      throw new CallbackRejection(400, 'This connect link was used already.');
    }
  },
};
