// Rules kept: SEP-990 section 3 (the client holds the user's ID token from single sign-on, issued to its IdP
// client); SEP-990 section 6.3 and RFC 6749 3.2 (the IdP token endpoint is https, plain http only on a loopback
// host, with no fragment; no userinfo: credentials go in the header); RFC 6749 2.3.1 (a client secret needs its
// client ID) and RFC 7523 2.2 (so does a private key, signing with an asymmetric algorithm only, RFC 8725 3.1); one
// way of authenticating at a time.
import type { CryptoKey } from 'jose';
import { ASYMMETRIC_SIGNING_ALGORITHMS, isLoopbackHost } from '@portcullis/protocol';

/**
 * What the client needs from the enterprise IdP: the user's ID token from single sign-on and the IdP client it was
 * issued to.
 *
 * @see https://github.com/modelcontextprotocol/ext-auth/blob/main/specification/draft/enterprise-managed-authorization.mdx
 */
export interface IdJagStrategyOptions {
  /** The user's OpenID Connect ID token, issued by the IdP to `idpClientId` (SEP-990 section 3). */
  readonly idToken: string;
  /** The IdP's token endpoint, where the ID token is exchanged for an ID-JAG (RFC 8693 2.1). */
  readonly idpTokenEndpoint: string;
  /** The client's ID at the IdP (the ID token's `aud`). */
  readonly idpClientId?: string;
  /** Its secret at the IdP, sent with `client_secret_basic` (RFC 6749 2.3.1). Needs `idpClientId`. */
  readonly idpClientSecret?: string;
  /**
   * Its private key at the IdP, for `private_key_jwt` (RFC 7523 2.2): each exchange carries a fresh assertion with
   * `iss` = `sub` = `idpClientId` and `aud` the IdP's token endpoint (RFC 7523 3). Needs `idpClientId`; not with
   * `idpClientSecret`.
   */
  readonly idpPrivateKey?: IdpPrivateKey;
}

/**
 * A private key the client authenticates at the IdP with: the key, its JWS algorithm, and its `kid` if any (the
 * shape of `@portcullis/client`'s `importClientAssertionKey` result, which can be passed as is).
 */
export interface IdpPrivateKey {
  readonly privateKey: CryptoKey;
  readonly algorithm: string;
  readonly keyId?: string | undefined;
}

/**
 * The IdP token endpoint of usable options; throws a `TypeError` naming the first option that is not.
 *
 * @see https://github.com/modelcontextprotocol/ext-auth/blob/main/specification/draft/enterprise-managed-authorization.mdx
 */
export function checkOptions(options: IdJagStrategyOptions): URL {
  if (typeof options.idToken !== 'string' || !/^[\x21-\x7E]+$/u.test(options.idToken)) {
    throw new TypeError('idToken must be the ID token: a non-empty string of visible ASCII characters');
  }
  let endpoint: URL;
  try {
    endpoint = new URL(options.idpTokenEndpoint);
  } catch {
    throw new TypeError('idpTokenEndpoint must be an absolute URL');
  }
  if (
    endpoint.protocol !== 'https:' &&
    !(endpoint.protocol === 'http:' && isLoopbackHost(endpoint.hostname))
  ) {
    throw new TypeError('idpTokenEndpoint must be an https URL (http only on a loopback host)');
  }
  if (endpoint.hash !== '' || options.idpTokenEndpoint.includes('#')) {
    throw new TypeError('idpTokenEndpoint must not have a fragment');
  }
  if (endpoint.username !== '' || endpoint.password !== '') {
    throw new TypeError('idpTokenEndpoint must not have userinfo');
  }
  if (options.idpClientId !== undefined && options.idpClientId === '') {
    throw new TypeError('idpClientId must not be empty');
  }
  if (options.idpClientSecret !== undefined && options.idpClientId === undefined) {
    throw new TypeError('idpClientSecret needs idpClientId');
  }
  if (options.idpPrivateKey !== undefined) {
    if (options.idpClientId === undefined) throw new TypeError('idpPrivateKey needs idpClientId');
    if (options.idpClientSecret !== undefined) {
      throw new TypeError('give idpClientSecret or idpPrivateKey, not both');
    }
    if (!(ASYMMETRIC_SIGNING_ALGORITHMS as readonly string[]).includes(options.idpPrivateKey.algorithm)) {
      throw new TypeError('idpPrivateKey.algorithm must be an asymmetric JWS algorithm (RFC 8725 3.1)');
    }
  }
  return endpoint;
}
