// Rules kept: RFC 8725 3.11 (explicit typing: a JWT an extension has the host sign carries its own `typ`, never
// `at+jwt` (RFC 9068 2.1) or `JWT`, the types of this server's access and ID tokens, so that none can pass for
// another); RFC 7519 4.1 (`iss`, `iat`, `exp` and `jti` are the signer's); OpenID Connect Core 3.1.3.7 (an ID token
// is checked for its signature, its `iss` and its expiry).
import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { JsonObject, SignedJwt, SignJwtRequest } from '@portcullis/extensions';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, SignJWT } from 'jose';
import {
  AUTHORIZATION_SERVER_OPTIONS,
  type AuthorizationServerOptions,
} from '../config/authorization-server.options.js';
import { RemoteKeySets } from '../keys/remote-key-sets.js';
import { SIGNING_ALGORITHM, SigningKeysService } from '../keys/signing-keys.service.js';
import { UserRepository } from '../users/user.repository.js';

/** The `typ` values of this server's own tokens (RFC 9068 2.1, OpenID Connect Core 2), compared case-insensitively. */
const HOST_TYPES = new Set(['at+jwt', 'application/at+jwt', 'jwt', 'application/jwt']);
/** An explicit type (RFC 8725 3.11): a media subtype ending in `+jwt` (RFC 6838 4.2 characters). */
const EXPLICIT_TYPE = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}\+jwt$/i;
const HOST_CLAIMS = ['iss', 'iat', 'exp', 'nbf', 'jti'];

/**
 * What the host offers an extension's grant handler for JWTs (`GrantContext.signJwt`, `GrantContext.verifyIdToken`
 * and `GrantContext.fetchJwks`): signing with the server's current key, checking an ID token it issued, and the keys
 * of a trusted issuer at its `jwks_uri` (through {@link RemoteKeySets}: the SSRF guard, limits and cache).
 *
 * @see https://www.rfc-editor.org/rfc/rfc8725#section-3.11
 * @see https://openid.net/specs/openid-connect-core-1_0.html#IDTokenValidation
 */
@Injectable()
export class ExtensionJwts {
  constructor(
    private readonly keys: SigningKeysService,
    private readonly users: UserRepository,
    @Inject(AUTHORIZATION_SERVER_OPTIONS) private readonly options: AuthorizationServerOptions,
    private readonly keySets: RemoteKeySets,
  ) {}

  /** The asymmetric public keys at a trusted issuer's `jwks_uri`, fetched as a client's are. */
  async fetchJwks(jwksUri: string, kid?: string): Promise<JsonObject> {
    return (await this.keySets.fetch(jwksUri, kid)) as unknown as JsonObject;
  }

  async sign(request: SignJwtRequest): Promise<SignedJwt> {
    if (!EXPLICIT_TYPE.test(request.typ) || HOST_TYPES.has(request.typ.toLowerCase())) {
      throw new Error(
        `signJwt: typ ${JSON.stringify(request.typ)} is not an explicit type of the extension's own`,
      );
    }
    const taken = HOST_CLAIMS.filter((claim) => claim in request.claims);
    if (taken.length > 0) throw new Error(`signJwt: ${taken.join(', ')} are set by the host`);
    if (!Number.isInteger(request.lifetime) || request.lifetime <= 0) {
      throw new Error('signJwt: lifetime must be a positive whole number of seconds');
    }
    const expiresIn = Math.min(request.lifetime, this.options.lifetimes.accessToken);
    const key = this.keys.current();
    const now = Math.floor(Date.now() / 1000);
    const jwt = await new SignJWT(request.claims)
      .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: request.typ })
      .setIssuer(this.options.issuer)
      .setIssuedAt(now)
      .setExpirationTime(now + expiresIn)
      .setJti(randomUUID())
      .sign(key.privateKey);
    return { jwt, expiresIn };
  }

  async verifyIdToken(token: string): Promise<JsonObject | undefined> {
    try {
      // A kid this instance does not know may be a key another instance rotated to: re-read the keys first.
      const { kid } = decodeProtectedHeader(token);
      const { payload } = await jwtVerify(token, createLocalJWKSet(await this.keys.verificationKeys(kid)), {
        issuer: this.options.issuer,
        typ: 'JWT',
        algorithms: [SIGNING_ALGORITHM],
        requiredClaims: ['sub', 'aud', 'exp', 'iat'],
      });
      // An access token has `typ` at+jwt and is refused above; an ID token has no `scope` or `client_id`.
      if ('client_id' in payload || 'scope' in payload) return undefined;
      if (!(await this.users.findById(payload.sub as string))) return undefined;
      return payload as JsonObject;
    } catch {
      return undefined;
    }
  }
}
