// Rules kept: OpenID Connect Dynamic Client Registration 1.0 section 2 (`application_type` is `web` or `native`;
// web clients do not use localhost redirect URIs, native clients use loopback or custom-scheme ones), MCP 2026-07-28
// "Application Type and Redirect URI Constraints" (the request MUST carry `application_type`: `native` for loopback
// or custom-scheme redirects, `web` otherwise; asked of the revision as `dcr-application-type`), RFC 7591 3.2.2
// (`invalid_client_metadata`). A sent `application_type` is always checked against the redirect URIs; where the
// revision does not require it, an absent one is derived from them. Custom schemes never get this far (the
// redirect URI check admits https and loopback http only), so `native` means loopback here.
import { isLoopbackHostname } from '@portcullis/metadata';
import { OAuthError } from '@portcullis/protocol';
import { establishedField, type ApplicationType, type RegistrationCheck } from '../registration-check.js';

/**
 * `application_type` is present when the revision requires it, and agrees with the redirect URIs.
 *
 * @see https://openid.net/specs/openid-connect-registration-1_0.html#ClientMetadata
 */
export const applicationTypeCheck: RegistrationCheck = {
  name: 'application-type',
  run(context) {
    const sent = establishedField(context, 'metadata').application_type;
    const uris = establishedField(context, 'redirectUris');
    const loopback = uris.filter((uri) => isLoopbackHostname(new URL(uri).hostname));
    if (sent === undefined) {
      if (context.revision.supports('dcr-application-type')) {
        throw new OAuthError('invalid_client_metadata', 'application_type is required (web or native)');
      }
      context.applicationType = derive(uris.length, loopback.length);
      return;
    }
    if (sent === 'native' && loopback.length < uris.length) {
      throw new OAuthError(
        'invalid_client_metadata',
        'application_type native requires loopback redirect_uris (http://127.0.0.1, http://[::1] or http://localhost)',
      );
    }
    if (sent === 'web' && loopback.length > 0) {
      throw new OAuthError(
        'invalid_client_metadata',
        'application_type web must not use loopback redirect_uris',
      );
    }
    context.applicationType = sent;
  },
};

/** RFC 8252: a client that only redirects to the local machine is a native app; anything else is a web client. */
function derive(total: number, loopback: number): ApplicationType {
  return total > 0 && loopback === total ? 'native' : 'web';
}
