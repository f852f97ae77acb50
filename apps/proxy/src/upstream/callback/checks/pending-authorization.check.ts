// Rules kept: RFC 6749 4.1.2 (a code is issued only for the authorization request the user is answering): the
// pending request the sign-in continues must still exist, unexpired and unanswered, for the client the state was
// created for. A sign-in to the connected apps page, or to connect a connection, continues no authorization and has
// none to check.
import { CallbackRejection, established, type CallbackCheck } from '../callback-check.js';

/** The pending authorization of the sign-in is still waiting, for the same client. */
export const pendingAuthorizationCheck: CallbackCheck = {
  name: 'pending-authorization',
  async run(context) {
    const signIn = established(context, 'signIn');
    if (signIn.purpose !== 'authorization') return;
    const pending = await context.pendingAuthorizations.find(signIn.interaction);
    if (!pending || pending.request.clientId !== signIn.clientId) {
      throw new CallbackRejection(
        400,
        'The request this sign-in was for has expired or was already answered.',
      );
    }
    context.pending = pending;
  },
};
