import type { TokenRequestProof, TokenResponse } from '@portcullis/extensions';
import type { AuthenticatedOAuthClient } from '../clients/client-authentication.js';
import type { RequestParameters } from '../http/request-parameters.js';

/**
 * One grant type of the token endpoint, registered by its `grant_type` name: a built-in grant (RFC 6749 4.1.3, 6)
 * or an extension grant (RFC 6749 4.5, `ExtensionGrant`). The endpoint has authenticated the client and checked
 * that its registration allows the grant before calling it.
 */
export interface TokenGrant {
  readonly grantType: string;
  /**
   * `client` is `undefined` only for a request `clientOptional` said goes without client authentication. `proof` is
   * the request's verified proof of possession (RFC 9449 section 5), `undefined` when it carries none: the grant
   * binds what it issues to it, and refuses it when the grant is bound to another key (a `dpop_jkt` code, a public
   * client's bound refresh token) before consuming anything.
   */
  handle(
    params: RequestParameters,
    client: AuthenticatedOAuthClient | undefined,
    proof: TokenRequestProof | undefined,
  ): Promise<TokenResponse>;
  /**
   * Whether this request, which carries no client credentials, goes to the grant without client authentication:
   * its handler establishes the client from the grant itself (RFC 7521 4.1: client authentication is optional for
   * an assertion grant), or no handler takes it (it is `invalid_grant` whoever the client is). Absent: never.
   */
  clientOptional?(params: RequestParameters): boolean;
}

/** Injection token of every {@link TokenGrant}: the built-in grants, then the extension grants. */
export const TOKEN_GRANTS = 'portcullis:token-grants';
