import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type {
  Confirmation,
  RegisteredClient,
  TokenRequestProof,
  TokenResponse,
} from '@portcullis/extensions';
import type { AuthorizationGrant } from '@portcullis/persistence';
import { formatScope } from '@portcullis/protocol';
import {
  AUTHORIZATION_SERVER_OPTIONS,
  type AuthorizationServerOptions,
} from '../config/authorization-server.options.js';
import { SigningKeysService } from '../keys/signing-keys.service.js';
import { AuthorizationMetrics } from '../metrics/authorization.metrics.js';
import { CLAIM_SCOPES, ResourceRegistry } from '../resources/resource-registry.js';
import { identityClaims } from '../userinfo/identity-claims.js';
import { UserRepository } from '../users/user.repository.js';
import { grantClaimsContext } from './extension-claims.js';
import { signJwt } from './jwt-signer.js';
import {
  GrantRepository,
  randomToken,
  tokenHash,
  type IssuedAccessToken,
  type NewRefreshToken,
} from './grant.repository.js';

/** What to mint: one access token for one audience, optionally a refresh token and an ID token. */
export interface TokenRequest {
  readonly grantType: string;
  /** The client the tokens are for, with its registered metadata (for extensions' token claims). */
  readonly client: RegisteredClient;
  readonly subject: string;
  readonly resource: string;
  /** The scopes granted; the access token carries those meant for the resource (`accessTokenScopes`). */
  readonly scopes: readonly string[];
  /**
   * The grant the tokens descend from, as stored (its user, request and attachments feed extensions' token claims);
   * absent for grants without one (client credentials).
   */
  readonly grant?: AuthorizationGrant;
  /**
   * Issue a refresh token with these scopes, expiring then; bound to `confirmation` when set (a public client's,
   * RFC 9449 section 5).
   */
  readonly refreshToken?: {
    readonly scopes: readonly string[];
    readonly expiresAt: Date;
    readonly confirmation?: Confirmation;
  };
  /**
   * The token request's verified proof of possession: the access token is bound to its key (`cnf`, RFC 9449
   * section 6.1) and the response's `token_type` is the proof's (RFC 9449 section 5). Absent: a Bearer token.
   */
  readonly proof?: TokenRequestProof;
  /** Issue an ID token (the `openid` scope was granted). */
  readonly idToken?: { readonly nonce?: string; readonly authTime: Date };
}

/**
 * Tokens made and signed but not stored yet: the response, and the records that must be stored before it is sent
 * (by {@link TokenIssuer.issue}, or by a grant together with what it consumes).
 */
export interface MintedTokens {
  readonly response: TokenResponse;
  readonly accessToken: IssuedAccessToken;
  /** The refresh token's row, when one was issued (the response carries it in the clear). */
  readonly refreshToken?: NewRefreshToken;
}

/**
 * Mints tokens: RFC 9068 JWT access tokens (`typ: at+jwt`) signed with the current key, OIDC ID tokens, and
 * opaque refresh tokens stored hashed. Every access token is recorded by `jti`, with every scope granted (UserInfo
 * reads the claim scopes there); its `scope` claim holds only the scopes meant for its resource, without `profile`
 * and `email` (OIDC Core 5.4: those are claims about the person, which the ID token carries and UserInfo answers).
 * The token response's `scope` is everything granted. A token request with a proof of possession gets an access
 * token bound to the proof's key (`cnf`, a claim the host alone sets) and its `token_type`; without one it is a
 * Bearer token (RFC 6750).
 *
 * @see https://www.rfc-editor.org/rfc/rfc9449#section-6.1
 * @see https://www.rfc-editor.org/rfc/rfc9068#section-2
 * @see https://openid.net/specs/openid-connect-core-1_0.html#IDToken
 * @see https://openid.net/specs/openid-connect-core-1_0.html#ScopeClaims
 */
@Injectable()
export class TokenIssuer {
  constructor(
    private readonly keys: SigningKeysService,
    private readonly grants: GrantRepository,
    @Inject(AUTHORIZATION_SERVER_OPTIONS) private readonly options: AuthorizationServerOptions,
    private readonly metrics: AuthorizationMetrics,
    private readonly resources: ResourceRegistry,
    private readonly users: UserRepository,
  ) {}

  /** The configured lifetimes, for grants that compute expiries. */
  lifetimes(): AuthorizationServerOptions['lifetimes'] {
    return this.options.lifetimes;
  }

  /** Mints the tokens `request` asks for, stores them, and counts them issued. */
  async issue(request: TokenRequest): Promise<TokenResponse> {
    const minted = await this.mint(request);
    await this.grants.recordAccessToken(minted.accessToken);
    if (minted.refreshToken) await this.grants.storeRefreshToken(minted.refreshToken);
    this.issued(request.grantType);
    return minted.response;
  }

  /**
   * Mints the tokens `request` asks for without storing anything: the caller stores {@link MintedTokens} and then
   * counts them {@link issued}. Every refusal (an extension's claims hook) happens here, before anything is stored.
   */
  async mint(request: TokenRequest): Promise<MintedTokens> {
    const { issuer, lifetimes, extensions, revision } = this.options;
    const key = this.keys.current();
    const now = Math.floor(Date.now() / 1000);
    const jti = randomUUID();
    const scope = formatScope(request.scopes);
    const accessScopes = this.resources.accessTokenScopes(request.scopes);
    const clientId = request.client.clientId;
    const grantId = request.grant?.id;
    const extra = await extensions.tokenClaims({
      issuer,
      revision,
      grantType: request.grantType,
      clientId,
      client: request.client,
      subject: request.subject,
      scope: accessScopes,
      resources: [request.resource],
      ...grantClaimsContext(request.grant),
    });

    // RFC 9068 2.2: iss, exp, aud, sub, client_id, iat, jti required; scope when a scope was granted. RFC 9449
    // 6.1: `cnf` names the key a bound token is bound to (extensions cannot set it: RESERVED_TOKEN_CLAIMS).
    const cnf = request.proof ? { cnf: request.proof.confirmation } : {};
    const accessToken = await signJwt(
      { alg: key.alg, kid: key.kid, typ: 'at+jwt' },
      {
        ...extra,
        client_id: clientId,
        scope: formatScope(accessScopes),
        ...cnf,
        iss: issuer,
        sub: request.subject,
        aud: request.resource,
        iat: now,
        exp: now + lifetimes.accessToken,
        jti,
      },
      key.privateKey,
    );
    const accessTokenRecord: IssuedAccessToken = {
      jti,
      ...(grantId ? { grantId } : {}),
      clientId,
      subject: request.subject,
      audience: request.resource,
      scopes: [...request.scopes],
      expiresAt: new Date((now + lifetimes.accessToken) * 1000),
    };

    let refreshToken: string | undefined;
    let refreshTokenRecord: NewRefreshToken | undefined;
    let idToken: string | undefined;
    if (request.refreshToken && grantId) {
      refreshToken = randomToken();
      refreshTokenRecord = {
        tokenHash: tokenHash(refreshToken),
        grantId,
        scopes: [...request.refreshToken.scopes],
        expiresAt: request.refreshToken.expiresAt,
        ...(request.refreshToken.confirmation ? { confirmation: request.refreshToken.confirmation } : {}),
      };
    }
    if (request.idToken) {
      // OIDC Core 5.4: the claims `profile` and `email` ask for, of the person as they are now.
      const user = request.scopes.some((each) => CLAIM_SCOPES.includes(each))
        ? await this.users.findById(request.subject)
        : null;
      idToken = await signJwt(
        { alg: key.alg, kid: key.kid, typ: 'JWT' },
        {
          ...(user ? identityClaims(user, request.scopes) : {}),
          auth_time: Math.floor(request.idToken.authTime.getTime() / 1000),
          ...(request.idToken.nonce ? { nonce: request.idToken.nonce } : {}),
          iss: issuer,
          sub: request.subject,
          aud: clientId,
          iat: now,
          exp: now + lifetimes.idToken,
        },
        key.privateKey,
      );
    }
    return {
      response: {
        access_token: accessToken,
        token_type: request.proof?.tokenType ?? 'Bearer',
        expires_in: lifetimes.accessToken,
        scope,
        ...(refreshToken ? { refresh_token: refreshToken } : {}),
        ...(idToken ? { id_token: idToken } : {}),
      },
      accessToken: accessTokenRecord,
      ...(refreshTokenRecord ? { refreshToken: refreshTokenRecord } : {}),
    };
  }

  /** Counts tokens of `grantType` issued, once what {@link mint} made is stored. */
  issued(grantType: string): void {
    this.metrics.tokenIssued(grantType);
  }
}
