import type { TokenResponse } from '@portcullis/extensions';
import type { AuthenticatedOAuthClient } from '../clients/client-authentication.js';
import type { RequestParameters } from '../http/request-parameters.js';

/**
 * One grant type of the token endpoint, registered by its `grant_type` name: a built-in grant (RFC 6749 4.1.3, 6)
 * or an extension grant (RFC 6749 4.5, `ExtensionGrant`). The endpoint has authenticated the client and checked
 * that its registration allows the grant before calling it.
 */
export interface TokenGrant {
  readonly grantType: string;
  handle(params: RequestParameters, client: AuthenticatedOAuthClient): Promise<TokenResponse>;
}

/** Injection token of every {@link TokenGrant}: the built-in grants, then the extension grants. */
export const TOKEN_GRANTS = 'portcullis:token-grants';
