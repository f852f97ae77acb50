// Rules kept: RFC 7523 2.2 and 3 (a JWT client assertion: `iss` and `sub` are the client ID; `aud` names this
// authorization server: its issuer identifier or its token endpoint URL; `exp` is required and the assertion is
// refused after it; `jti` is accepted once; the signature verifies with one of the client's registered keys);
// RFC 7521 4.2 (`client_assertion_type` is `urn:ietf:params:oauth:client-assertion-type:jwt-bearer`, and a
// `client_id` sent beside the assertion names the same client); RFC 8725 3.1 and 3.2 (the algorithm is one of a
// fixed list of asymmetric ones, never `none` and never an HMAC that a public key could be used as the secret of).
// Our choices: `exp` at most 5 minutes ahead (an assertion is for one request, not a long-lived credential), 30 s
// of clock skew, and `jti` remembered until `exp` in the database, so a replay fails on every instance.
import { Inject, Injectable } from '@nestjs/common';
import { ASYMMETRIC_SIGNING_ALGORITHMS } from '@portcullis/protocol';
import { decodeJwt, decodeProtectedHeader, errors, jwtVerify } from 'jose';
import {
  AUTHORIZATION_SERVER_OPTIONS,
  type AuthorizationServerOptions,
} from '../../config/authorization-server.options.js';
import type { OAuthClient } from '../client.js';
import { InvalidClientError } from '../invalid-client.error.js';
import { UsedJwtIds } from './used-jwt-id.repository.js';
import { ClientKeySets } from './client-key-sets.js';

/** The one assertion type this server accepts (RFC 7523 2.2). */
export const JWT_BEARER_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/**
 * The algorithms a client assertion may be signed with: asymmetric only, as advertised in
 * `token_endpoint_auth_signing_alg_values_supported` (RFC 8414 2).
 */
export const CLIENT_ASSERTION_ALGORITHMS: readonly string[] = ASYMMETRIC_SIGNING_ALGORITHMS;

/** The longest an assertion may still be valid for, in seconds. */
export const MAX_ASSERTION_LIFETIME_SECONDS = 300;
const CLOCK_SKEW_SECONDS = 30;

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
    private readonly keys: ClientKeySets,
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

  /** Returns when `assertion` authenticates `client`; throws {@link InvalidClientError} otherwise. */
  async verify(assertion: string, client: OAuthClient): Promise<void> {
    let alg: string | undefined;
    try {
      alg = decodeProtectedHeader(assertion).alg;
    } catch {
      throw new InvalidClientError('client_assertion is not a JWT');
    }
    if (!alg || !CLIENT_ASSERTION_ALGORITHMS.includes(alg)) {
      throw new InvalidClientError(
        `client_assertion must be signed with one of ${CLIENT_ASSERTION_ALGORITHMS.join(', ')}`,
      );
    }
    const keys = await this.keys.forClient(client);
    if (!keys) throw new InvalidClientError('client authentication failed');
    let payload;
    try {
      ({ payload } = await jwtVerify(assertion, keys, {
        algorithms: [...CLIENT_ASSERTION_ALGORITHMS],
        issuer: client.clientId,
        subject: client.clientId,
        audience: this.#audiences,
        clockTolerance: CLOCK_SKEW_SECONDS,
        requiredClaims: ['exp', 'jti'],
      }));
    } catch (error) {
      throw new InvalidClientError(describe(error));
    }
    const now = Math.floor(Date.now() / 1000);
    const exp = payload.exp as number;
    if (exp > now + MAX_ASSERTION_LIFETIME_SECONDS + CLOCK_SKEW_SECONDS) {
      throw new InvalidClientError(
        `client_assertion must expire within ${MAX_ASSERTION_LIFETIME_SECONDS} seconds`,
      );
    }
    const jti = payload.jti;
    if (typeof jti !== 'string' || jti.length === 0 || jti.length > 256) {
      throw new InvalidClientError('client_assertion needs a jti');
    }
    if (!(await this.jtis.use(client.clientId, jti, new Date((exp + CLOCK_SKEW_SECONDS) * 1000)))) {
      throw new InvalidClientError('client_assertion was already used');
    }
  }
}

/** Why jose refused an assertion, in words that name no key and no secret. */
function describe(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'client_assertion has expired';
  if (error instanceof errors.JWTClaimValidationFailed) {
    return error.claim === 'aud'
      ? 'client_assertion aud must be the issuer or the token endpoint'
      : `client_assertion ${error.claim} is not valid`;
  }
  if (error instanceof errors.JWSSignatureVerificationFailed || error instanceof errors.JWKSNoMatchingKey) {
    return 'client_assertion is not signed by a key of this client';
  }
  return 'client authentication failed';
}
