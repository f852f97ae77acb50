// Rules kept: MCP 2025-11-25 URL-mode elicitation (the server verifies that the user who completes the out-of-band
// step is the user who was asked): a connect completes only when the person who just signed in upstream is already
// the local user the connect ticket names, by the upstream identity (provider, issuer, subject; OIDC Core 5.7), never
// by a name or an address. Anyone else gets a page saying so (403), and nothing is stored: no local user, no upstream
// identity, no tokens; the ticket is not used up, so its user can still complete it; a `sign_in.failed` event.
import { CallbackRejection, established, type CallbackCheck } from '../callback-check.js';

/** The person who signed in upstream is the user the connect ticket was issued for. */
export const connectIdentityCheck: CallbackCheck = {
  name: 'connect-identity',
  async run(context) {
    if (established(context, 'signIn').purpose !== 'connect') return;
    const ticket = established(context, 'connectTicket');
    const userId = await context.identities.userIdOf(established(context, 'result'));
    if (userId !== ticket.userId) {
      throw new CallbackRejection(
        403,
        'You signed in as someone else than the person this link was made for. Nothing was connected: open the link again and sign in with that account.',
      );
    }
  },
};
