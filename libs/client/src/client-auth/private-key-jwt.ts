/**
 * `private_key_jwt` client authentication at the token endpoint: every token request (authorization code,
 * refresh, and an extension's grant, all through openid-client's `Configuration`) carries a fresh signed JWT.
 *
 * Rules kept here:
 * - RFC 7521 Section 4.2 and RFC 7523 Section 2.2: `client_assertion_type` is
 *   `urn:ietf:params:oauth:client-assertion-type:jwt-bearer` and `client_assertion` the JWT (openid-client's
 *   `PrivateKeyJwt` also sends `client_id`, which RFC 7521 4.2 allows).
 * - RFC 7523 Section 3 and OIDC Core Section 9: `iss` = `sub` = the client ID; `aud` = the authorization server's
 *   issuer identifier (RFC 7523 3: "the audience ... identifies the authorization server"; the value the MCP
 *   conformance suite's mock authorization server verifies, and the one openid-client sends); `exp` 60 s after
 *   `iat` (at most 5 minutes ahead); a fresh random `jti` per assertion, so each is used once.
 * - RFC 8414 Section 2: used only with a server whose metadata lists `private_key_jwt` in
 *   `token_endpoint_auth_methods_supported` (absent means `client_secret_basic` only), and, when
 *   `token_endpoint_auth_signing_alg_values_supported` is present, lists the key's algorithm; otherwise
 *   `client_auth_unsupported`, before any request is made with the client.
 * - The key and the assertions are never logged, reported or put into an error.
 */
import * as oidc from 'openid-client';
import { PortcullisError } from '../errors/portcullis-error.js';
import type { DiscoveredAuthorizationServer } from '../discovery/authorization-server.discovery.js';
import type { ClientAssertionKey } from './client-assertion-key.js';

/** The `client_assertion_type` of a JWT client assertion. */
export const JWT_BEARER_CLIENT_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/** Seconds from `iat` to `exp` of each assertion. */
export const CLIENT_ASSERTION_LIFETIME_SECONDS = 60;

/**
 * Throws `client_auth_unsupported` unless the server accepts `private_key_jwt` with the key's algorithm.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8414#section-2
 */
export function assertPrivateKeyJwtSupported(
  server: Pick<DiscoveredAuthorizationServer, 'issuer' | 'metadata'>,
  key: ClientAssertionKey,
): void {
  const methods = server.metadata.token_endpoint_auth_methods_supported ?? ['client_secret_basic'];
  if (!methods.includes('private_key_jwt')) {
    throw new PortcullisError(
      'client_auth_unsupported',
      `The authorization server ${server.issuer} does not accept private_key_jwt client authentication ` +
        `(token_endpoint_auth_methods_supported: ${methods.join(', ')}).`,
      { issuer: server.issuer, method: 'private_key_jwt', supported: methods },
    );
  }
  const algorithms = server.metadata.token_endpoint_auth_signing_alg_values_supported;
  // RFC 8037 Section 3.1 names the algorithm EdDSA; some servers list the fully specified Ed25519 instead.
  const names = key.algorithm === 'EdDSA' ? ['EdDSA', 'Ed25519'] : [key.algorithm];
  if (algorithms !== undefined && !names.some((name) => algorithms.includes(name))) {
    throw new PortcullisError(
      'client_auth_unsupported',
      `The authorization server ${server.issuer} does not accept client assertions signed with ${key.algorithm} ` +
        `(token_endpoint_auth_signing_alg_values_supported: ${algorithms.join(', ')}).`,
      { issuer: server.issuer, method: 'private_key_jwt', algorithm: key.algorithm, supported: algorithms },
    );
  }
}

/**
 * The openid-client client authentication that signs a fresh assertion for every token request.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7523#section-2.2
 * @see https://www.rfc-editor.org/rfc/rfc7523#section-3
 */
export function privateKeyJwt(
  server: Pick<DiscoveredAuthorizationServer, 'issuer' | 'metadata'>,
  key: ClientAssertionKey,
): oidc.ClientAuth {
  assertPrivateKeyJwtSupported(server, key);
  return oidc.PrivateKeyJwt(
    { key: key.privateKey, ...(key.keyId === undefined ? {} : { kid: key.keyId }) },
    {
      [oidc.modifyAssertion]: (header, payload) => {
        // openid-client names the algorithm after the CryptoKey (`Ed25519` for EdDSA keys); the signature is the
        // same, and `alg` is the one negotiated above.
        header.alg = key.algorithm;
        payload.exp = (payload.iat as number) + CLIENT_ASSERTION_LIFETIME_SECONDS;
      },
    },
  );
}
