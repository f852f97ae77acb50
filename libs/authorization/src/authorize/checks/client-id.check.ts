// Rules kept: RFC 6749 4.1.1 (`client_id` REQUIRED) and 4.1.2.1 (an unknown or invalid client is told to the
// user, never redirected); RFC 6749 3.1 (no repeated parameter: a repeated client_id cannot be trusted either).
import { OAuthError } from '@portcullis/protocol';
import type { AuthorizationCheck } from '../authorization-check.js';

/** `client_id` is present once and names a client this server knows. */
export const clientIdCheck: AuthorizationCheck = {
  name: 'client-id',
  beforeRedirect: true,
  async run(context) {
    if (context.params.repeated.includes('client_id')) {
      throw new OAuthError('invalid_request', 'client_id sent more than once');
    }
    const clientId = context.params.get('client_id');
    if (!clientId) throw new OAuthError('invalid_request', 'client_id is required');
    const client = await context.clients.find(clientId);
    if (!client) throw new OAuthError('invalid_client', 'unknown client');
    context.client = client;
  },
};
