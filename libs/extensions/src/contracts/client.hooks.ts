import type { ClientProofOfPossession } from './proof-of-possession.hooks.js';
import type { TokenResponse } from './token-response.types.js';

/**
 * What the client SDK hands a grant strategy once discovery is done.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8414#section-3.2
 * @see https://www.rfc-editor.org/rfc/rfc8707#section-2
 */
export interface ClientGrantContext {
  /** The authorization server's issuer identifier, already checked against its metadata. */
  readonly issuer: string;
  /** The authorization server's metadata document (RFC 8414), as validated by the SDK. */
  readonly authorizationServerMetadata: Readonly<Record<string, unknown>>;
  /** The canonical URI of the protected resource the token is for (RFC 8707). */
  readonly resource: string;
  /** The scope values to request (RFC 6749 section 3.3). */
  readonly scope: readonly string[];
  readonly revision: string;
  /**
   * Sends these parameters to the authorization server's token endpoint, adding the `resource` parameter and
   * the client's configured authentication, and returns the token response. An error response is thrown.
   */
  requestToken(params: Readonly<Record<string, string>>): Promise<TokenResponse>;
  /** The fetch to use for any other request the strategy makes (for example to an enterprise IdP). */
  readonly fetch: typeof fetch;
}

/**
 * One way a client can obtain an access token without the interactive authorization code flow.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.5
 */
export interface ClientGrantStrategy {
  /** The `grant_type` this strategy ends with; the SDK only offers it when the AS lists it in `grant_types_supported`. */
  readonly grantType: string;
  obtainToken(context: ClientGrantContext): Promise<TokenResponse>;
}

/**
 * The client side of an extension. Every hook is optional and only adds to what the SDK does.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.5
 */
export interface ClientHooks {
  /** Grant strategies by name, e.g. `client_credentials`. */
  readonly grantStrategies?: Readonly<Record<string, ClientGrantStrategy>>;
  /** Sender-constrained tokens (RFC 9449 DPoP); at most one extension of a composition provides it. */
  readonly proofOfPossession?: ClientProofOfPossession;
}
