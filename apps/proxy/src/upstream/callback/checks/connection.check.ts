// Rules kept: RFC 9700 4.4.2 (mix-up: each provider has a redirect URI of its own, and a response is accepted only at
// the redirect URI of the provider its request went to, so a response from one provider is never redeemed at
// another); the connection a sign-in goes to is the one its connect ticket names, and only while the proxy still
// offers it. Checked before the `state` is used up.
import { SIGN_IN_CONNECTION } from '../../../connections/connections.env.js';
import { CallbackRejection, established, type CallbackCheck } from '../callback-check.js';

/** The sign-in's provider is still offered, and the response came back to that provider's callback. */
export const connectionCheck: CallbackCheck = {
  name: 'connection',
  async run(context) {
    const signIn = established(context, 'signIn');
    const name =
      signIn.purpose === 'connect' ? established(context, 'connectTicket').connection : SIGN_IN_CONNECTION;
    const connection = context.connections.get(name);
    if (!connection) {
      throw new CallbackRejection(400, 'This service is no longer offered here. Nothing was connected.');
    }
    if (context.arrivedAt !== name) {
      throw new CallbackRejection(
        400,
        'This sign-in response came back to the address of another service than the one it was sent to.',
      );
    }
    context.upstream = connection.client;
  },
};
