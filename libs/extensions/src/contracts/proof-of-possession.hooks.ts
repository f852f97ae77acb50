import type { AuthenticatedClient, RegisteredClient } from './authorization-server.hooks.js';
import type { JsonObject } from './json.types.js';

/**
 * An HTTP request as the host received it, for an extension that checks a proof of possession bound to the
 * request (RFC 9449 section 4.3: the method, the target URI, the proof header).
 *
 * @see https://www.rfc-editor.org/rfc/rfc9449#section-4.3
 */
export interface HttpRequestView {
  /** The request method, upper case (`POST`). */
  readonly method: string;
  /**
   * The absolute URI the client addressed, as this server is known to its clients (its configured public origin,
   * never the `Host` header), with the query. Compare it, not the socket's address.
   */
  readonly url: string;
  /** Every value of the header field `name` (any case), one entry per field line, in order; `[]` when absent. */
  headerValues(name: string): readonly string[];
}

/**
 * A confirmation (RFC 7800 `cnf`): the key a token is bound to, e.g. `{ "jkt": "<JWK SHA-256 thumbprint>" }` for
 * DPoP (RFC 9449 section 6.1). The host stores it with the grant, puts it in the access token and in introspection
 * answers, and compares confirmations as JSON values, member by member.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7800#section-3.1
 * @see https://www.rfc-editor.org/rfc/rfc9449#section-6
 */
export type Confirmation = JsonObject;

/**
 * A token request's proof of possession, as the extension verified it.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9449#section-5
 */
export interface TokenRequestProof {
  /** The key the issued access token (and, for a public client, its refresh token) is bound to. */
  readonly confirmation: Confirmation;
  /** The response's `token_type` (RFC 9449 section 5: `DPoP`). */
  readonly tokenType: string;
}

/**
 * What the host knows when it hands a token request to the proof-of-possession extension.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9449#section-5
 */
export interface TokenRequestProofContext {
  readonly issuer: string;
  readonly revision: string;
  /** The token endpoint URL exactly as published in the metadata: the proof's `htu` must name it. */
  readonly tokenEndpoint: string;
  /** The `grant_type` of the request. */
  readonly grantType: string;
  /** The client; `undefined` when the grant identifies its client itself (an assertion grant without registration). */
  readonly client?: AuthenticatedClient;
  /**
   * Records a proof's `jti` as used until `expiresAt`, in the host's store (shared by every instance); true only
   * the first time (RFC 9449 section 11.1).
   */
  useOnce(namespace: string, jti: string, expiresAt: Date): Promise<boolean>;
}

/**
 * The authorization server side of a proof-of-possession extension (DPoP). At most one extension may provide it.
 *
 * The host calls `verifyTokenRequest` at the token endpoint for every grant, after client authentication and
 * before the grant consumes anything (an authorization code, a refresh token), and binds what it issues to the
 * returned confirmation: `cnf` in the access token and in introspection, `token_type` in the response, the
 * confirmation kept with a public client's refresh token, and the confirmation an authorization request named
 * (`authorizationRequestConfirmation`) compared with the proof's before a code is redeemed.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9449#section-5
 * @see https://www.rfc-editor.org/rfc/rfc9449#section-10
 */
export interface AuthorizationServerProofOfPossession {
  /** The HTTP authentication scheme tokens bound this way are presented with (RFC 9449 section 7.1: `DPoP`). */
  readonly scheme: string;
  /**
   * Verifies the proof the token request carries and returns the confirmation to bind to, or `undefined` when the
   * request carries no proof at all.
   *
   * @throws OAuthError from `@portcullis/protocol`: `invalid_dpop_proof` for a proof that fails a check,
   *   `use_dpop_nonce` with a `DPoP-Nonce` response header when a fresh server nonce is required (RFC 9449
   *   section 8).
   */
  verifyTokenRequest(
    request: HttpRequestView,
    context: TokenRequestProofContext,
  ): Promise<TokenRequestProof | undefined>;
  /**
   * The confirmation an authorization request asks its code to be bound to (RFC 9449 section 10, `dpop_jkt`), or
   * `undefined` when it names none. The host keeps it with the code and redeems the code only with a proof of that
   * key.
   *
   * @throws OAuthError `invalid_request` for a malformed value.
   */
  authorizationRequestConfirmation?(params: Readonly<Record<string, string>>): Confirmation | undefined;
  /**
   * Whether a client must prove possession at the token endpoint: every client when the operator says so, or
   * this client because its registered metadata says so (RFC 9449 section 5.2, `dpop_bound_access_tokens`).
   */
  requiredFor(client: RegisteredClient | undefined): boolean;
}

/**
 * An access token as the resource server received it, with the confirmation its validation found.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9449#section-7
 */
export interface PresentedToken {
  /** The access token itself, for `ath` (RFC 9449 section 4.3, item 12). */
  readonly token: string;
  /** The token's `cnf` (from the JWT or from introspection); `undefined` for an unbound token. */
  readonly confirmation?: Confirmation;
}

/**
 * What the resource server knows when it checks a proof.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9449#section-7.1
 */
export interface ResourceProofContext {
  /** The protected resource's identifier (`resource` of its metadata). */
  readonly resource: string;
  readonly revision: string;
}

/**
 * The resource server side of a proof-of-possession extension (DPoP). At most one extension may provide it.
 *
 * The host accepts `Authorization: <scheme> <token>` beside `Bearer`, validates the token as always, and then:
 * a token presented with `scheme` must be bound (`binds`) and its proof must verify (`verifyRequest`); a bound
 * token presented as `Bearer` is refused (RFC 9449 section 7.2). Every 401 challenge carries this scheme's
 * challenge beside `Bearer`, with the same `resource_metadata` and `scope` and `challengeParameters`.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9449#section-7
 */
export interface ResourceServerProofOfPossession {
  /** The HTTP authentication scheme (RFC 9449 section 7.1: `DPoP`), compared case-insensitively. */
  readonly scheme: string;
  /** Parameters of this scheme's challenge besides the host's (RFC 9449 section 7.1: `algs`). */
  readonly challengeParameters?: Readonly<Record<string, string>>;
  /**
   * The proof algorithms accepted, which the host publishes as `dpop_signing_alg_values_supported` in its protected
   * resource metadata (RFC 9728 section 2).
   */
  readonly algorithms: readonly string[];
  /**
   * Whether every token must be bound: the host then refuses `Bearer` and publishes
   * `dpop_bound_access_tokens_required: true` (RFC 9728 section 2).
   */
  readonly required: boolean;
  /** Whether a token with this confirmation is bound to a key this scheme proves (`cnf.jkt` for DPoP). */
  binds(confirmation: Confirmation): boolean;
  /**
   * Verifies the request's proof for the token. Returns to accept.
   *
   * @throws OAuthError from `@portcullis/protocol`: `invalid_dpop_proof`, or `use_dpop_nonce` with a `DPoP-Nonce`
   *   response header (RFC 9449 section 9). The host answers 401 with this scheme's challenge.
   */
  verifyRequest(
    request: HttpRequestView,
    token: PresentedToken,
    context: ResourceProofContext,
  ): Promise<void>;
}

/**
 * One request a client proves possession for.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9449#section-4.2
 */
export interface ProofRequest {
  readonly method: string;
  /** The request's URL; the proof names it without query and fragment. */
  readonly url: string;
  /** The access token the request carries (resource requests only): the proof's `ath`. */
  readonly accessToken?: string;
  /** The server's latest nonce for this origin, if it gave one. */
  readonly nonce?: string;
}

/**
 * The client side of a proof-of-possession extension (DPoP). The SDK uses it for a resource that accepts the
 * scheme (`advertisedBy`, or a 401 challenge of the scheme) with an authorization server that offers it
 * (`algorithmFor`): it creates one key per authorization, keeps it with the tokens (encrypted like them), signs a
 * fresh proof for every token and resource request, and retries once with the server's nonce when asked (RFC 9449
 * sections 8 and 9).
 *
 * @see https://www.rfc-editor.org/rfc/rfc9449#section-4
 */
export interface ClientProofOfPossession {
  /** The HTTP authentication scheme the bound token is sent with (`DPoP`). */
  readonly scheme: string;
  /**
   * The signing algorithm to use with an authorization server, from its metadata
   * (`dpop_signing_alg_values_supported`), or `undefined` when it does not offer the scheme. With the resource's
   * metadata, an algorithm the resource lists too is preferred (the same key signs the proofs for both).
   */
  algorithmFor(
    authorizationServerMetadata: Readonly<Record<string, unknown>>,
    resourceMetadata?: Readonly<Record<string, unknown>>,
  ): string | undefined;
  /**
   * Whether a protected resource's metadata says it accepts tokens bound this way (RFC 9728 section 2:
   * `dpop_signing_alg_values_supported`, `dpop_bound_access_tokens_required`). Without this hook only a 401
   * challenge of the scheme says so (RFC 9449 section 7.1).
   */
  advertisedBy?(resourceMetadata: Readonly<Record<string, unknown>>): boolean;
  /**
   * The token endpoint error code of a server that wants a proof the request did not carry, or refused the one it
   * did (RFC 9449 section 5: `invalid_dpop_proof`).
   */
  readonly proofErrorCode?: string;
  /** A new key pair for one authorization, as a private JWK (with `alg`) for the SDK to keep. */
  generateKey(algorithm: string): Promise<JsonObject>;
  /** A fresh proof of `request`, signed with `key` (a JWK `generateKey` returned), for the proof header. */
  proof(key: JsonObject, request: ProofRequest): Promise<string>;
  /** The request header the proof travels in (`DPoP`). */
  readonly header: string;
  /** The response header a server sends its nonce in (`DPoP-Nonce`, RFC 9449 section 8). */
  readonly nonceHeader: string;
  /** The error code of a server that wants a proof with its nonce (`use_dpop_nonce`). */
  readonly nonceErrorCode: string;
}
