// Rules kept: RFC 9449 10 (`dpop_jkt` binds the authorization code to the key it names: the code is kept with that
// confirmation and redeemed only with a proof of that key; a malformed value is `invalid_request`, sent to the
// validated redirect URI as RFC 6749 4.1.2.1 says). Asked of the composed proof-of-possession extension; without one
// the parameter is an unknown one and ignored (RFC 6749 3.1).
import type { AuthorizationCheck } from '../authorization-check.js';

/** The confirmation the request binds its code to (`dpop_jkt`), if it names one. */
export const proofOfPossessionCheck: AuthorizationCheck = {
  name: 'proof-of-possession',
  beforeRedirect: false,
  run(context) {
    const possession = context.extensions.authorizationServerProofOfPossession();
    const confirmation = possession?.authorizationRequestConfirmation?.(context.params.entries());
    if (confirmation !== undefined) context.confirmation = confirmation;
  },
};
