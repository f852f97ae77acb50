// Rules kept: MCP "Communication Security" (each redirect URI is https, or http on a loopback host; never
// `javascript:` or `data:`), RFC 8252 7.1 (a private-use URI scheme, only one the operator allows with
// `ALLOWED_REDIRECT_SCHEMES`, written `scheme:/path` or `scheme://authority/path`), RFC 9700 2.1 (no wildcard),
// RFC 6749 3.1.2 (absolute, no fragment), RFC 7591 2 (`redirect_uris` is REQUIRED for redirect-based grants) and
// 3.2.2 (`invalid_redirect_uri`). At most 10, none twice. Matching at /authorize stays exact (OAuth 2.1 2.3.1), so
// what is stored is exactly what was sent.
import { describeRedirectUriProblem, findRedirectUriProblem } from '@portcullis/metadata';
import { OAuthError } from '@portcullis/protocol';
import { establishedField, type RegistrationCheck } from '../registration-check.js';

/**
 * The most redirect URIs one client may register.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7591#section-2
 */
export const MAX_REDIRECT_URIS = 10;

/**
 * Every redirect URI is https, loopback http or of an allowed private-use scheme, without fragment or wildcard;
 * at most 10.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-3.1.2
 * @see https://www.rfc-editor.org/rfc/rfc8252#section-7.1
 */
export const redirectUrisCheck: RegistrationCheck = {
  name: 'redirect-uris',
  run(context) {
    const uris = establishedField(context, 'metadata').redirect_uris ?? [];
    if (establishedField(context, 'grantTypes').includes('authorization_code') && uris.length === 0) {
      throw new OAuthError(
        'invalid_redirect_uri',
        'redirect_uris is required for the authorization_code grant',
      );
    }
    if (uris.length > MAX_REDIRECT_URIS) {
      throw new OAuthError(
        'invalid_redirect_uri',
        `at most ${MAX_REDIRECT_URIS} redirect_uris may be registered`,
      );
    }
    const schemes = context.privateUseSchemes ?? [];
    uris.forEach((uri, index) => {
      const problem = findRedirectUriProblem(uri, schemes);
      if (problem !== undefined) {
        throw new OAuthError(
          'invalid_redirect_uri',
          `redirect_uris[${index}] ${describeRedirectUriProblem(problem, schemes)}`,
        );
      }
      if (uri.includes('*')) {
        throw new OAuthError('invalid_redirect_uri', `redirect_uris[${index}] must not contain a wildcard`);
      }
      if (uris.indexOf(uri) !== index) {
        throw new OAuthError('invalid_redirect_uri', `redirect_uris[${index}] is registered twice`);
      }
    });
    context.redirectUris = [...uris];
  },
};
