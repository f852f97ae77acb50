// Rules kept: RFC 7523 2.2 and 3 (a JWT client assertion: `iss` and `sub` are the client ID; `aud` names this
// authorization server: its issuer identifier or its token endpoint URL; `exp` is required and the assertion is
// refused after it; `jti` is accepted once; the signature verifies with one of the client's registered keys);
// RFC 7521 4.2 (`client_assertion_type` is `urn:ietf:params:oauth:client-assertion-type:jwt-bearer`, and a
// `client_id` sent beside the assertion names the same client); RFC 8725 3.1 and 3.2 (the algorithm is one of a
// fixed list of asymmetric ones, never `none` and never an HMAC that a public key could be used as the secret of).
// Our choices: `exp` at most 5 minutes ahead (an assertion is for one request, not a long-lived credential), and
// `jti` remembered until `exp` in the database, so a replay fails on every instance. The JWT checks, the clock skew
// and the wording of refusals are `verifyJwtAssertion`'s (`@portcullis/protocol`), shared with the assertion
// grants of extensions; a `jwks_uri` is fetched by `RemoteKeySets` (the SSRF guard, limits and cache).
import { Inject, Injectable } from '@nestjs/common';
import {
  ASYMMETRIC_SIGNING_ALGORITHMS,
  publicJwkSet,
  verifyJwtAssertion,
  type JwtAssertionKeys,
} from '@portcullis/protocol';
import { decodeJwt } from 'jose';
import {
  AUTHORIZATION_SERVER_OPTIONS,
  type AuthorizationServerOptions,
} from '../../config/authorization-server.options.js';
import { RemoteKeySets } from '../../keys/remote-key-sets.js';
import type { OAuthClient } from '../client.js';
import { InvalidClientError } from '../invalid-client.error.js';
import { UsedJwtIds } from './used-jwt-id.repository.js';

/** The one assertion type this server accepts (RFC 7523 2.2). */
export const JWT_BEARER_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/**
 * The algorithms a client assertion may be signed with: asymmetric only, as advertised in
 * `token_endpoint_auth_signing_alg_values_supported` (RFC 8414 2).
 */
export const CLIENT_ASSERTION_ALGORITHMS: readonly string[] = ASYMMETRIC_SIGNING_ALGORITHMS;

/** The longest an assertion may still be valid for, in seconds. */
export const MAX_ASSERTION_LIFETIME_SECONDS = 300;

/**
 * Verifies `private_key_jwt` client assertions. Everything that can refuse an assertion (its form, algorithm,
 * signature, claims and lifetime) runs before its `jti` is recorded, so a refused assertion uses nothing up.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7523#section-3
 * @see https://www.rfc-editor.org/rfc/rfc7521#section-4.2
 */
@Injectable()
export class ClientAssertionVerifier {
  readonly #audiences: string[];

  constructor(
    private readonly keySets: RemoteKeySets,
    private readonly jtis: UsedJwtIds,
    @Inject(AUTHORIZATION_SERVER_OPTIONS) options: AuthorizationServerOptions,
  ) {
    const issuerPath = new URL(options.issuer).pathname.replace(/\/$/, '');
    this.#audiences = [options.issuer, `${new URL(options.issuer).origin}${issuerPath}/token`];
  }

  /**
   * The client an assertion says it is from (`sub`, which RFC 7523 3 makes the client ID), read without verifying
   * anything: only to look the client up. Undefined for something that is not a JWT.
   */
  static claimedClient(assertion: string): string | undefined {
    try {
      const { sub } = decodeJwt(assertion);
      return typeof sub === 'string' && sub.length > 0 ? sub : undefined;
    } catch {
      return undefined;
    }
  }

  /** Returns when `assertion` authenticates `client`; throws an `invalid_client` `OAuthError` otherwise. */
  async verify(assertion: string, client: OAuthClient): Promise<void> {
    const keys = this.#keysOf(client);
    if (!keys) throw new InvalidClientError('client authentication failed');
    const verified = await verifyJwtAssertion(assertion, {
      parameter: 'client_assertion',
      error: 'invalid_client',
      keys,
      signer: 'a key of this client',
      issuer: client.clientId,
      subject: client.clientId,
      audience: this.#audiences,
      algorithms: CLIENT_ASSERTION_ALGORITHMS,
      jti: 'required',
      maxExpiresInSeconds: MAX_ASSERTION_LIFETIME_SECONDS,
    });
    await verified.useOnce(
      (issuer, jti, expiresAt) => this.jtis.use(issuer, jti, expiresAt),
      client.clientId,
    );
  }

  /**
   * The client's public keys: its registered `jwks` when it has a usable one, else the set at its `jwks_uri`;
   * undefined when it has neither.
   *
   * @see https://www.rfc-editor.org/rfc/rfc7591#section-2 (jwks, jwks_uri)
   */
  #keysOf(client: OAuthClient): JwtAssertionKeys | undefined {
    const jwks = client.metadata['jwks'];
    if (publicJwkSet(jwks)) return { jwks };
    const jwksUri = client.metadata['jwks_uri'];
    if (typeof jwksUri !== 'string') return undefined;
    return { jwksUri, fetchJwks: (uri, kid) => this.keySets.fetch(uri, kid) };
  }
}
