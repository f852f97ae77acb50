import type { ExtensionAttachments } from './authorization-request.hooks.js';
import type { RegisteredClient } from './authorization-server.hooks.js';
import type { JsonObject } from './json.types.js';

/**
 * The person who authorized a grant, as the host authenticated them.
 *
 * @see https://openid.net/specs/openid-connect-core-1_0.html#IDToken
 * @see https://www.rfc-editor.org/rfc/rfc8176#section-2
 */
export interface TokenClaimsUser {
  /** The user's identifier at this server: the access token's `sub`. */
  readonly sub: string;
  /** When the user last authenticated, in seconds since the epoch (OpenID Connect `auth_time`). */
  readonly auth_time: number;
  /**
   * How they authenticated, as RFC 8176 method values (`pwd` for a password); empty when the host does not know
   * (the upstream of a proxy that did not say).
   */
  readonly amr: readonly string[];
}

/**
 * The authorization grant a token descends from: one authorization code and every refresh of it.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-1.3
 */
export interface TokenClaimsGrant {
  /** The host's identifier of the grant, the same for every token of the family. */
  readonly id: string;
  /** Every scope value granted; a refresh may narrow the token's `scope`, never this. */
  readonly scope: readonly string[];
  /** The resource the grant is for (RFC 8707), the audience of its access tokens. */
  readonly resource: string;
}

/**
 * What the host knows when it mints an access token.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9068#section-2.2
 */
export interface TokenClaimsContext {
  readonly issuer: string;
  readonly revision: string;
  /** The `grant_type` that led to this token. */
  readonly grantType: string;
  readonly clientId: string;
  /** The client the token is issued to, with its registered metadata. */
  readonly client: RegisteredClient;
  readonly subject: string;
  /** The scope values the access token carries. */
  readonly scope: readonly string[];
  readonly resources: readonly string[];
  /**
   * The person who authorized the grant: set for the tokens of an authorization code and of its refreshes; absent
   * for an extension's grant (client credentials, an assertion), where no one signed in here.
   */
  readonly user?: TokenClaimsUser;
  /** The grant the token descends from; absent as `user` is. */
  readonly grant?: TokenClaimsGrant;
  /**
   * The authorization request the grant came from, as the extension checks saw it (every parameter but `resource`,
   * and the `resource` values); kept with the grant, so a refresh sees the same. Absent as `user` is.
   */
  readonly authorizationRequest?: {
    readonly params: Readonly<Record<string, string>>;
    readonly resources: readonly string[];
  };
  /**
   * What this extension's authorization request checks attached to the authorization (see
   * `AuthorizationRequestCheck`), kept with the grant for its refreshes too; empty when they attached nothing, or
   * when the token has no authorization request.
   */
  readonly attachments: JsonObject;
}

/**
 * What the host gives `ExtensionRegistry.tokenClaims`: the context every hook shares, and every extension's
 * attachments, of which the registry gives each hook its own.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9068#section-2.2
 */
export interface TokenClaimsRequest extends Omit<TokenClaimsContext, 'attachments'> {
  readonly attachments?: ExtensionAttachments;
}

/**
 * Returns extra access token claims. It may never set a registered claim (see `RESERVED_TOKEN_CLAIMS`): the
 * registry checks every call and throws `reserved_claim`.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9068#section-2.2
 * @see https://www.rfc-editor.org/rfc/rfc7519#section-4.1
 */
export type TokenClaimsHook = (context: TokenClaimsContext) => JsonObject | Promise<JsonObject>;
