// Rules kept: MCP 2025-11-25 URL-mode elicitation (the server verifies that the user who completes the out-of-band
// step is the user who was asked). A connection other than the sign-in provider's has an identity of its own there
// (a GitHub account is not the Entra one the person signs in with), so who connects it is the proxy's session in
// this browser: it must be the ticket's user's, checked before the `state` is used up and the provider's code
// redeemed. Anyone else gets a page (403) and nothing is stored; the ticket stays usable by its user.
import { SIGN_IN_CONNECTION } from '../../../connections/connections.env.js';
import { CallbackRejection, established, type CallbackCheck } from '../callback-check.js';

/** A connection other than the sign-in provider's is connected in the session of the ticket's user. */
export const connectSessionCheck: CallbackCheck = {
  name: 'connect-session',
  async run(context) {
    if (established(context, 'signIn').purpose !== 'connect') return;
    const ticket = established(context, 'connectTicket');
    if (ticket.connection === SIGN_IN_CONNECTION) return;
    const session = await context.sessions.current(context.cookies);
    if (session?.userId !== ticket.userId) {
      throw new CallbackRejection(
        403,
        'You are not signed in here as the person this link was made for. Nothing was connected: sign in with that account and open the link again.',
      );
    }
  },
};
