// Rules kept: RFC 7591 2 (`grant_types` defaults to `authorization_code`, `response_types` to `code`) and 2.1
// (the two must agree: `authorization_code` with `code` and `code` with `authorization_code`); OAuth 2.1 (no
// implicit grant: `code` is the only response type); an extension grant is offered (`grant_types_supported`) but its
// clients are registered by the operator (our choice, after MCP SEP-1046's out-of-band registration) unless its
// extension opens it to self-registered clients (`selfRegistrableGrantTypes`: its authority is an identity
// provider's assertion, not the registration), so asking for it is refused, never quietly dropped; a grant type this
// server does not offer at all (VS Code lists the device code grant, RFC 8628) is left out and the response lists
// the grant types registered (RFC 7591 3.2.1: the server may replace requested values), unless none is left; a
// refresh token needs a grant that issues one first.
import { OAuthError } from '@portcullis/protocol';
import { establishedField, type RegistrationCheck } from '../registration-check.js';

/**
 * The grant types are those requested that this server offers (none closed to self-registration), and the
 * response types agree with them.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7591#section-2.1
 * @see https://www.rfc-editor.org/rfc/rfc7591#section-3.2.1
 */
export const grantTypesCheck: RegistrationCheck = {
  name: 'grant-types',
  run(context) {
    const metadata = establishedField(context, 'metadata');
    const requested = [...new Set(metadata.grant_types ?? ['authorization_code'])];
    if (requested.length === 0)
      throw new OAuthError('invalid_client_metadata', 'grant_types must not be empty');
    const byOperator = requested.filter((type) => context.operatorGrants?.includes(type));
    if (byOperator.length > 0) {
      throw new OAuthError(
        'invalid_client_metadata',
        `grant_types ${byOperator.join(' ')}: such clients are registered by the operator, not by dynamic registration`,
      );
    }
    const grantTypes = requested.filter((type) => context.grantTypesSupported.includes(type));
    if (grantTypes.length === 0) {
      const open = context.grantTypesSupported.filter((type) => !context.operatorGrants?.includes(type));
      throw new OAuthError(
        'invalid_client_metadata',
        `grant_types not supported: ${requested.join(' ')} (offered: ${open.join(' ')})`,
      );
    }
    const responseTypes = [
      ...new Set(metadata.response_types ?? (grantTypes.includes('authorization_code') ? ['code'] : [])),
    ];
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
