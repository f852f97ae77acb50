// Rules kept: MCP 2025-11-25 URL-mode elicitation (the server verifies that the user who completes the out-of-band
// step is the user who was asked): a connect of the sign-in provider's connection, and a sign-in on the way to connect
// another one, complete only when the person who just signed in at the sign-in provider is already the local user
// the connect ticket names, by the upstream identity (provider, issuer, subject; OIDC Core 5.7), never by a name or
// an address. Anyone else gets a page saying so (403), and nothing is stored: no local user, no upstream identity, no
// tokens, no session; the ticket is not used up, so its user can still complete it; a `sign_in.failed` event.
import { SIGN_IN_CONNECTION } from '../../../connections/connections.env.js';
import { CallbackRejection, established, type CallbackCheck } from '../callback-check.js';

/** The person who signed in at the sign-in provider is the user the connect ticket was issued for. */
export const connectIdentityCheck: CallbackCheck = {
  name: 'connect-identity',
  async run(context) {
    const signIn = established(context, 'signIn');
    if (signIn.purpose === 'authorization' || signIn.ticket === undefined) return;
    const ticket = established(context, 'connectTicket');
    // Another connection's identity is its own; `connect-session.check.ts` decided who connects it.
    if (signIn.purpose === 'connect' && ticket.connection !== SIGN_IN_CONNECTION) return;
    const userId = await context.identities.userIdOf(established(context, 'result'));
    if (userId !== ticket.userId) {
      throw new CallbackRejection(
        403,
        'You signed in as someone else than the person this link was made for. Nothing was connected: open the link again and sign in with that account.',
      );
    }
  },
};
