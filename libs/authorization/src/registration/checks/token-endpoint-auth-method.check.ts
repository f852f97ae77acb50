// Rules kept: RFC 7591 2 (`token_endpoint_auth_method` defaults to `client_secret_basic`; an unsupported method
// is `invalid_client_metadata`, 3.2.2), RFC 6749 2.1 (`none` makes a public client, which gets no secret; the
// shared-secret methods make a confidential one). Only the methods the token endpoint implements are accepted
// (`token_endpoint_auth_methods_supported`). `jwks` must carry public keys only (RFC 7517 4; RFC 7518 6.2.2.1 and
// 6.3.2: no `d`, `p`, `q`, `dp`, `dq`, `qi`, `oth`, `k`): a private key sent to us is a leaked key. RFC 7523 2.2
// and RFC 7591 2: `private_key_jwt` needs the client's public keys, in `jwks` or at `jwks_uri` (never both, which
// the metadata schema refuses), and they must be asymmetric keys (`RSA`, `EC`, `OKP`; RFC 8725 3.1).
import { PRIVATE_JWK_MEMBERS } from '@portcullis/metadata';
import { OAuthError } from '@portcullis/protocol';
import { establishedField, type RegistrationCheck } from '../registration-check.js';

/**
 * The authentication methods a registered client may use at the token endpoint.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7591#section-2
 */
export const REGISTRABLE_AUTH_METHODS: readonly string[] = [
  'none',
  'client_secret_basic',
  'client_secret_post',
  'private_key_jwt',
];

const ASYMMETRIC_KEY_TYPES = new Set(['RSA', 'EC', 'OKP']);

/**
 * The token endpoint authentication method is one the token endpoint implements; `jwks` holds no private key.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7591#section-2
 */
export const tokenEndpointAuthMethodCheck: RegistrationCheck = {
  name: 'token-endpoint-auth-method',
  run(context) {
    const metadata = establishedField(context, 'metadata');
    const method = metadata.token_endpoint_auth_method ?? 'client_secret_basic';
    if (!REGISTRABLE_AUTH_METHODS.includes(method)) {
      throw new OAuthError(
        'invalid_client_metadata',
        `token_endpoint_auth_method ${method} is not supported; use one of ${REGISTRABLE_AUTH_METHODS.join(', ')}`,
      );
    }
    const keys = metadata.jwks?.keys ?? [];
    if (keys.some((key) => PRIVATE_JWK_MEMBERS.some((member) => Object.hasOwn(key, member)))) {
      throw new OAuthError('invalid_client_metadata', 'jwks must contain public keys only');
    }
    if (method === 'private_key_jwt') {
      if (metadata.jwks === undefined && metadata.jwks_uri === undefined) {
        throw new OAuthError('invalid_client_metadata', 'private_key_jwt needs jwks or jwks_uri');
      }
      if (keys.some((key) => !ASYMMETRIC_KEY_TYPES.has(String((key as { kty?: unknown }).kty)))) {
        throw new OAuthError(
          'invalid_client_metadata',
          'private_key_jwt keys must be RSA, EC or OKP public keys',
        );
      }
    }
    context.tokenEndpointAuthMethod = method;
  },
};
