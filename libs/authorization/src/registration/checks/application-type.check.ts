// Rules kept: OpenID Connect Dynamic Client Registration 1.0 section 2 (`application_type` is `web` or `native`;
// custom-scheme and loopback redirect URIs are a native client's; an authorization server MAY refuse http redirect
// URIs other than a native client's loopback ones, which it does for `web`); RFC 8252 7.2 (a native app may use a
// claimed https redirect URI, so `native` accepts https beside loopback and private-use ones, as VS Code registers
// them); RFC 7591 3.2.2 (`invalid_client_metadata`). MCP 2026-07-28 "Application Type and Redirect URI Constraints"
// has the client send `native` for loopback or custom-scheme redirect URIs and `web` otherwise: an absent value (the
// MCP SDK v1, and claude.ai's registration, send none) is derived by that same rule rather than refused, and the
// response states the value registered (RFC 7591 3.2.1 lets the server supply values). Since `native` fits every
// redirect URI the redirect URI check admits, a sent `native` is never refused; a sent `web` is, beside a loopback or
// private-use redirect URI.
import { redirectUriKind } from '@portcullis/metadata';
import { OAuthError } from '@portcullis/protocol';
import { establishedField, type ApplicationType, type RegistrationCheck } from '../registration-check.js';

/**
 * `application_type` agrees with the redirect URIs, and is derived from them when absent.
 *
 * @see https://openid.net/specs/openid-connect-registration-1_0.html#ClientMetadata
 * @see https://www.rfc-editor.org/rfc/rfc8252#section-7.2
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization/client-registration#application-type-and-redirect-uri-constraints
 */
export const applicationTypeCheck: RegistrationCheck = {
  name: 'application-type',
  run(context) {
    const sent = establishedField(context, 'metadata').application_type;
    const local = establishedField(context, 'redirectUris').filter(
      (uri) => redirectUriKind(uri, context.privateUseSchemes) !== 'https',
    );
    if (sent === 'web' && local.length > 0) {
      throw new OAuthError(
        'invalid_client_metadata',
        `application_type web takes https redirect_uris only; ${local[0]} is a native app's (register it as native)`,
      );
    }
    context.applicationType = sent ?? derive(local.length);
  },
};

/** MCP's rule for the value the client should have sent: `native` with any loopback or private-use redirect URI. */
function derive(local: number): ApplicationType {
  return local > 0 ? 'native' : 'web';
}
