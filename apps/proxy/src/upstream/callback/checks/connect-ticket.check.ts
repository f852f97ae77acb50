// Rules kept: a connect link is one-time and short-lived (MCP 2025-11-25 URL-mode elicitation: the out-of-band step
// is the asked user's alone): a sign-in to connect a connection (or to sign in on the way to one) continues only a
// connect ticket that still opens under the proxy's key, has not expired and was not used, checked before the state
// is used up and the upstream asked anything. It is not used up here (`connect-ticket-taken.check.ts` does, once the
// person is known to be the ticket's user).
import { CallbackRejection, established, type CallbackCheck } from '../callback-check.js';

/** The connect ticket of a `connect` sign-in, or of an `account` sign-in on its way to one, can still be used. */
export const connectTicketCheck: CallbackCheck = {
  name: 'connect-ticket',
  async run(context) {
    const signIn = established(context, 'signIn');
    if (signIn.purpose === 'authorization' || signIn.ticket === undefined) return;
    const reading = await context.connectTickets.read(signIn.ticket);
    if (reading.outcome === 'expired') {
      throw new CallbackRejection(400, 'This connect link has expired. Ask the application for a new one.');
    }
    if (reading.outcome === 'used') {
      throw new CallbackRejection(400, 'This connect link was used already.');
    }
    if (reading.outcome !== 'valid') throw new CallbackRejection(400, 'This connect link is not valid.');
    context.connectTicket = reading.ticket;
  },
};
