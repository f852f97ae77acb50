// Rules kept: OAuth 2.1 4.1.1 (`response_type=code` REQUIRED; the implicit grant is gone) and RFC 6749 4.1.2.1
// (`unsupported_response_type`); the client must have registered the `code` response type (RFC 7591 2).
import { OAuthError } from '@portcullis/protocol';
import { established, type AuthorizationCheck } from '../authorization-check.js';

/** `response_type` is `code`, and the client may use it. */
export const responseTypeCheck: AuthorizationCheck = {
  name: 'response-type',
  beforeRedirect: false,
  run(context) {
    const responseType = context.params.get('response_type');
    if (responseType === undefined) throw new OAuthError('invalid_request', 'response_type is required');
    if (responseType !== 'code') {
      throw new OAuthError('unsupported_response_type', 'only response_type=code is supported');
    }
    const client = established(context, 'client');
    if (!client.responseTypes.includes('code') || !client.grantTypes.includes('authorization_code')) {
      throw new OAuthError('unauthorized_client', 'this client may not use the authorization code grant');
    }
  },
};
