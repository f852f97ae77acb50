// Rules kept: extensions add checks, never remove the host's (libs/extensions contract); they run after every
// host check, so `client_id` and `redirect_uri` are trusted and their errors can be redirected (RFC 6749 4.1.2.1).
// What they attach is kept with the authorization (the pending request, then the grant) for their token claims.
import { established, type AuthorizationCheck } from '../authorization-check.js';

/** The composed extensions' authorization request checks, in registry order. */
export const extensionChecks: AuthorizationCheck = {
  name: 'extensions',
  beforeRedirect: false,
  async run(context) {
    const client = established(context, 'client');
    context.attachments = await context.extensions.runAuthorizationRequestChecks(
      {
        params: context.params.entries(),
        resources: context.params.resources,
        client: { clientId: client.clientId, metadata: client.metadata },
      },
      { issuer: context.issuer, revision: context.revision },
    );
  },
};
