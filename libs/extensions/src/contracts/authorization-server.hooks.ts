import type { NamedAuthorizationRequestCheck } from './authorization-request.hooks.js';
import type { JsonObject } from './json.types.js';
import type { AuthorizationServerProofOfPossession } from './proof-of-possession.hooks.js';
import type { TokenClaimsHook } from './token-claims.hooks.js';
import type { TokenResponse } from './token-response.types.js';

/**
 * Fields an extension adds to a metadata document, given as a fixed record (checked for conflicts when the
 * registry is composed) or as a function of the document's context (checked each time the document is built).
 *
 * @see https://www.rfc-editor.org/rfc/rfc8414#section-2
 * @see https://www.rfc-editor.org/rfc/rfc9728#section-2
 */
export type MetadataContribution<Context> = JsonObject | ((context: Context) => JsonObject);

/**
 * What the host knows when it builds its authorization server metadata document.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8414#section-3
 */
export interface AuthorizationServerMetadataContext {
  /** The authorization server's issuer identifier, exactly as published in `issuer`. */
  readonly issuer: string;
  /** The MCP authorization revision in force, e.g. `2026-07-28`. */
  readonly revision: string;
}

/**
 * A client as the host has registered it: its identifier and its registered metadata (RFC 7591 section 2 names,
 * or a Client ID Metadata Document).
 *
 * @see https://www.rfc-editor.org/rfc/rfc7591#section-2
 */
export interface RegisteredClient {
  readonly clientId: string;
  readonly metadata: Readonly<Record<string, unknown>>;
}

/**
 * A client the host has authenticated at the token endpoint, with the method it used (an RFC 7591
 * `token_endpoint_auth_method` value; `none` for a public client, which is identified, not authenticated).
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-2.3
 * @see https://www.rfc-editor.org/rfc/rfc7591#section-2
 */
export interface AuthenticatedClient extends RegisteredClient {
  readonly authenticationMethod: string;
}

/**
 * A token request for a grant type an extension handles. The host has already authenticated the client
 * (RFC 6749 section 3.2.1), checked that the client may use this grant type, and removed the client credentials
 * (`client_secret`, `client_assertion`, `client_assertion_type`) from `params`.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.5
 * @see https://www.rfc-editor.org/rfc/rfc8707#section-2
 */
export interface GrantRequest {
  /** The `grant_type` parameter, the name the handler was registered under. */
  readonly grantType: string;
  /**
   * Every other parameter, each sent once (RFC 6749 section 3.2 forbids repeating a parameter); `resource`
   * is not here but in `resources`.
   */
  readonly params: Readonly<Record<string, string>>;
  /** Every `resource` parameter, in request order (RFC 8707 section 2 allows several). */
  readonly resources: readonly string[];
  readonly client: AuthenticatedClient;
}

/**
 * What a grant handler asks the host to issue. The host applies its own policy to `scope` and `resources`
 * exactly as for its built-in grants (throwing `invalid_scope` or `invalid_target`), mints the tokens, adds the
 * registry's extra token claims, and returns the token response.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-5.1
 * @see https://www.rfc-editor.org/rfc/rfc9068#section-2.2
 */
export interface IssueTokensRequest {
  /** The access token's `sub`: the resource owner, or the client identifier when the client acts for itself. */
  readonly subject: string;
  /** The requested scope values (RFC 6749 section 3.3). */
  readonly scope: readonly string[];
  /** The resources the token is for (RFC 8707), which become its audience. */
  readonly resources: readonly string[];
  /** Whether a refresh token may be issued; RFC 6749 section 4.4.3 says a client credentials grant should not. */
  readonly refreshToken?: boolean;
  /**
   * The token's `client_id`, for a grant registered with `establishesClient` only: the client the handler
   * established from the grant itself (RFC 7521 section 4.1 makes client authentication optional for an assertion
   * grant). Required when the request carried no client credentials; when the client authenticated, it must be that
   * client. The host throws (a `server_error`) when it is given to any other grant, or differs.
   */
  readonly clientId?: string;
}

/**
 * What the host hands a grant handler: its identity and the one way to mint tokens.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.5
 */
export interface GrantContext {
  readonly issuer: string;
  readonly revision: string;
  /**
   * The host's token endpoint URL, which RFC 7523 section 3 item 3 allows as an assertion's `aud`. Hosts should
   * provide it.
   */
  readonly tokenEndpoint?: string;
  /** Mints tokens through the host, so that every token carries the same registered claims and policy. */
  issueTokens(request: IssueTokensRequest): Promise<TokenResponse>;
  /**
   * Records the `jti` of a JWT from `issuer` as used until `expiresAt`, in the host's store (shared by every
   * instance, kept across restarts); true only the first time. For assertion grants whose JWTs may be used once
   * (RFC 7523 3, item 7).
   */
  useOnce(issuer: string, jti: string, expiresAt: Date): Promise<boolean>;
  /**
   * Signs a JWT with this authorization server's current signing key (the one published at its `jwks_uri`), for
   * an extension that issues assertions of its own (an identity provider's ID-JAG, say). The host sets `iss`,
   * `iat`, `exp` and `jti`; the extension sets the rest and the explicit `typ` (RFC 8725 section 3.11).
   *
   * @throws Error when `typ` is not an explicit `…+jwt` type, is one of the host's own (`at+jwt`, `JWT`), or the
   *   claims name `iss`, `iat`, `exp`, `nbf` or `jti`.
   */
  signJwt(request: SignJwtRequest): Promise<SignedJwt>;
  /**
   * Verifies an OpenID Connect ID token this authorization server issued: its signature with one of the keys
   * published at `jwks_uri`, its `iss`, its expiry, and that its subject is still a user here. Returns its claims,
   * or `undefined` for anything else (another issuer's token, an expired one, a token of another kind).
   *
   * @see https://openid.net/specs/openid-connect-core-1_0.html#IDTokenValidation
   */
  verifyIdToken(token: string): Promise<JsonObject | undefined>;
  /**
   * The JWK Set at `jwksUri` (a trusted issuer's keys, for verifying its assertions), fetched by the host as it
   * fetches a client's `jwks_uri`: through its SSRF guard, without redirects, within its size and time limits, and
   * cached for the document's HTTP lifetime within its bounds. Only asymmetric public keys are returned. When `kid`
   * names a key the cached set lacks, the host fetches the set again (at most once per cooldown), so an issuer's
   * key rotation is picked up. Throws when the set cannot be fetched or holds no usable key. Hosts should provide
   * it; without it, keys at a `jwks_uri` cannot be had and such assertions are refused.
   *
   * @see https://www.rfc-editor.org/rfc/rfc7517#section-5
   * @see https://www.rfc-editor.org/rfc/rfc7523#section-3
   */
  readonly fetchJwks?: (jwksUri: string, kid?: string) => Promise<JsonObject>;
}

/**
 * A JWT for the host to sign (see `GrantContext.signJwt`).
 *
 * @see https://www.rfc-editor.org/rfc/rfc7519#section-4.1
 * @see https://www.rfc-editor.org/rfc/rfc8725#section-3.11
 */
export interface SignJwtRequest {
  /** The JOSE `typ` header: an explicit type such as `oauth-id-jag+jwt`. */
  readonly typ: string;
  /** Every claim but `iss`, `iat`, `exp`, `nbf` and `jti`, which are the host's. */
  readonly claims: JsonObject;
  /**
   * Seconds until `exp`. The host keeps it within its access token lifetime: a key it retires stays published for
   * that long, so everything it signed stays verifiable until it expires.
   */
  readonly lifetime: number;
}

/** A JWT the host signed, and how many seconds it is valid for (`exp` minus `iat`). */
export interface SignedJwt {
  readonly jwt: string;
  readonly expiresIn: number;
}

/**
 * The result of a grant handler: a successful token response.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-5.1
 */
export type GrantResult = TokenResponse;

/**
 * Handles one grant type at the token endpoint. It rejects by throwing; the host maps what is thrown to an
 * RFC 6749 section 5.2 error response (an `OAuthError` from `@portcullis/protocol` keeps its code, anything else
 * becomes `server_error`).
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.5
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-5.2
 */
export type GrantHandler = (request: GrantRequest, context: GrantContext) => Promise<GrantResult>;

/**
 * A token request as the host sees it before it authenticates the client, for a shared grant type's `accepts`:
 * nothing in it is verified yet, and the client credentials are already removed from `params`.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.5
 */
export interface GrantSelectionRequest {
  readonly grantType: string;
  readonly params: Readonly<Record<string, string>>;
  readonly resources: readonly string[];
}

/**
 * A token request for a grant whose handler establishes the client from the grant itself
 * (`GrantRegistration.establishesClient`): `client` is the authenticated client when the request carried client
 * credentials, and `undefined` when it carried none (a `client_id` parameter alone is left in `params`, unchecked).
 *
 * @see https://www.rfc-editor.org/rfc/rfc7521#section-4.1
 */
export interface ClientEstablishingGrantRequest extends Omit<GrantRequest, 'client'> {
  readonly client: AuthenticatedClient | undefined;
}

/**
 * Handles a grant that establishes its client from the grant itself; it passes that client to `issueTokens` as
 * `clientId`.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7521#section-4.1
 */
export type ClientEstablishingGrantHandler = (
  request: ClientEstablishingGrantRequest,
  context: GrantContext,
) => Promise<GrantResult>;

interface GrantRegistrationBase {
  /**
   * Makes the grant type shareable: several extensions may register it, each taking the requests its `accepts`
   * returns true for; the host dispatches a request to the first (registry order) that accepts it, and answers
   * `invalid_grant` when none does. Called before the client is authenticated, so it must decide from the form
   * alone (a JOSE header, an unverified claim), synchronously, without throwing and without side effects; the
   * handler verifies everything. A grant type is shared only when every registration of it has `accepts`.
   */
  readonly accepts?: (request: GrantSelectionRequest) => boolean;
}

/**
 * A grant type registration whose client the host authenticates before the handler runs (as for a bare
 * `GrantHandler`).
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-3.2.1
 */
export interface AuthenticatedGrantRegistration extends GrantRegistrationBase {
  readonly establishesClient?: false;
  readonly handle: GrantHandler;
}

/**
 * A grant type registration whose handler establishes the client from the grant itself (a workload's JWT,
 * MCP SEP-1933): the host skips client authentication for a request that carries no client credentials (no
 * `Authorization` header, no `client_secret`, no `client_assertion`), and authenticates as usual one that does.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7521#section-4.1
 * @see https://github.com/modelcontextprotocol/modelcontextprotocol/pull/1933
 */
export interface ClientEstablishingGrantRegistration extends GrantRegistrationBase {
  readonly establishesClient: true;
  readonly handle: ClientEstablishingGrantHandler;
}

/**
 * A grant type's handler with its options.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.5
 */
export type GrantRegistration = AuthenticatedGrantRegistration | ClientEstablishingGrantRegistration;

/**
 * The authorization server side of an extension. Every hook is optional and only adds to what the host does.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8414#section-2
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.5
 */
export interface AuthorizationServerHooks {
  /** Fields added to the authorization server metadata document (RFC 8414). */
  readonly metadata?: MetadataContribution<AuthorizationServerMetadataContext>;
  /**
   * Token endpoint grant handlers, by `grant_type` (RFC 6749 section 4.5): a handler, or a registration with
   * options (`accepts` to share the grant type with other extensions, `establishesClient`).
   */
  readonly grantTypes?: Readonly<Record<string, GrantHandler | GrantRegistration>>;
  /**
   * The grant types of `grantTypes` that a client may declare for itself, by dynamic registration (RFC 7591) or in
   * its client ID metadata document. The others are for clients the operator registers: a grant whose only
   * proof is the client's own authentication (client credentials) must not be open to anyone who can host a
   * document. List a grant here only when its handler gets its authority from elsewhere (an assertion from an
   * identity provider the operator trusts, say). A grant type several extensions share is self-registrable only
   * when every one of them lists it.
   */
  readonly selfRegistrableGrantTypes?: readonly string[];
  /**
   * Extra authorization request checks, run in this order after the host's own; what they return is attached to
   * the authorization, for this extension's `tokenClaims`.
   */
  readonly authorizationRequestChecks?: readonly NamedAuthorizationRequestCheck[];
  /** Extra access token claims (RFC 9068 section 2.2). */
  readonly tokenClaims?: TokenClaimsHook;
  /** Sender-constrained tokens (RFC 9449 DPoP); at most one extension of a composition provides it. */
  readonly proofOfPossession?: AuthorizationServerProofOfPossession;
}
