// Rules kept: RFC 7591 2 (`grant_types` defaults to `authorization_code`, `response_types` to `code`) and 2.1
// (the two must agree: `authorization_code` with `code` and `code` with `authorization_code`); OAuth 2.1 (no
// implicit grant: `code` is the only response type); an extension grant is offered (`grant_types_supported`) but its
// clients are registered by the operator (our choice, after MCP SEP-1046's out-of-band registration) unless its
// extension opens it to self-registered clients (`selfRegistrableGrantTypes`: its authority is an identity
// provider's assertion, not the registration); a refresh token needs a grant that issues one first.
import { OAuthError } from '@portcullis/protocol';
import { establishedField, type RegistrationCheck } from '../registration-check.js';

/**
 * The grant and response types are ones this server offers, and consistent with each other.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7591#section-2.1
 */
export const grantTypesCheck: RegistrationCheck = {
  name: 'grant-types',
  run(context) {
    const metadata = establishedField(context, 'metadata');
    const grantTypes = [...new Set(metadata.grant_types ?? ['authorization_code'])];
    const responseTypes = [
      ...new Set(metadata.response_types ?? (grantTypes.includes('authorization_code') ? ['code'] : [])),
    ];
    if (grantTypes.length === 0)
      throw new OAuthError('invalid_client_metadata', 'grant_types must not be empty');
    const byOperator = grantTypes.filter((type) => context.operatorGrants?.includes(type));
    if (byOperator.length > 0) {
      throw new OAuthError(
        'invalid_client_metadata',
        `grant_types ${byOperator.join(' ')}: such clients are registered by the operator, not by dynamic registration`,
      );
    }
    const unsupported = grantTypes.filter((type) => !context.grantTypesSupported.includes(type));
    if (unsupported.length > 0) {
      throw new OAuthError('invalid_client_metadata', `grant_types not supported: ${unsupported.join(' ')}`);
    }
    const badResponse = responseTypes.filter((type) => type !== 'code');
    if (badResponse.length > 0) {
      throw new OAuthError(
        'invalid_client_metadata',
        `response_types not supported: ${badResponse.join(' ')}`,
      );
    }
    if (grantTypes.includes('authorization_code') !== responseTypes.includes('code')) {
      throw new OAuthError(
        'invalid_client_metadata',
        'grant_types authorization_code and response_types code go together (RFC 7591 2.1)',
      );
    }
    if (grantTypes.includes('refresh_token') && grantTypes.length === 1) {
      throw new OAuthError(
        'invalid_client_metadata',
        'grant_types refresh_token needs a grant that issues one',
      );
    }
    context.grantTypes = grantTypes;
    context.responseTypes = responseTypes;
  },
};
