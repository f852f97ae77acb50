import type { TokenResponse } from '@portcullis/extensions';
import type { AuthenticatedOAuthClient } from '../clients/client-authentication.js';
import type { RequestParameters } from '../http/request-parameters.js';

/**
 * One grant type of the token endpoint (RFC 6749 4.5), registered by its `grant_type` name. The endpoint has
 * authenticated the client and checked that its registration allows the grant before calling it.
 */
export interface TokenGrant {
  readonly grantType: string;
  handle(params: RequestParameters, client: AuthenticatedOAuthClient): Promise<TokenResponse>;
}

/** Multi-provider token under which the built-in grants register. */
export const TOKEN_GRANTS = 'portcullis:token-grants';
