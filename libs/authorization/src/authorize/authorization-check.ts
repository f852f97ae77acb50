import type { Confirmation, ExtensionAttachments, ExtensionRegistry } from '@portcullis/extensions';
import type { OAuthClient, ClientSource } from '../clients/client.js';
import type { RequestParameters } from '../http/request-parameters.js';
import type { RegisteredResource, ResourceRegistry } from '../resources/resource-registry.js';

/**
 * What the authorization endpoint's checks read and establish, in order: each check may rely on what the checks
 * before it set (`client` after the client check, `redirectUri` after the redirect URI check, ...).
 */
export interface AuthorizationCheckContext {
  readonly params: RequestParameters;
  readonly issuer: string;
  readonly revision: string;
  readonly clients: ClientSource;
  readonly resources: ResourceRegistry;
  readonly extensions: ExtensionRegistry;
  /** The private-use redirect URI schemes the operator allows now (`ALLOWED_REDIRECT_SCHEMES`). */
  readonly allowedRedirectSchemes: readonly string[];
  client?: OAuthClient;
  redirectUri?: string;
  /** Whether the request carried `redirect_uri` (then the token request must repeat it, RFC 6749 4.1.3). */
  redirectUriSent?: boolean;
  codeChallenge?: string;
  resource?: RegisteredResource;
  scopes?: string[];
  prompt?: ReadonlySet<string>;
  /** The key the code is to be bound to (RFC 9449 10, `dpop_jkt`); absent when the request names none. */
  confirmation?: Confirmation;
  /** What the extensions' checks attached, by extension id (set by the last check). */
  attachments?: ExtensionAttachments;
}

/**
 * One rule of the authorization endpoint. It returns to accept and throws an `OAuthError` to reject. Checks marked
 * `beforeRedirect` run while the redirect URI is not yet trusted: their errors are shown on a page, never sent to
 * the client (RFC 6749 4.1.2.1). The others' errors go back to the validated redirect URI.
 */
export interface AuthorizationCheck {
  readonly name: string;
  readonly beforeRedirect: boolean;
  run(context: AuthorizationCheckContext): void | Promise<void>;
}

/** The fields every check after the redirect URI check may count on. */
export type TrustedAuthorizationContext = AuthorizationCheckContext & {
  client: OAuthClient;
  redirectUri: string;
};

/**
 * A field an earlier check established. The order of `AUTHORIZATION_CHECKS` guarantees it; a missing one is a
 * programming error in that order, never a client error.
 */
export function established<
  K extends 'client' | 'redirectUri' | 'codeChallenge' | 'resource' | 'scopes' | 'prompt',
>(context: AuthorizationCheckContext, key: K): NonNullable<AuthorizationCheckContext[K]> {
  const value = context[key];
  if (value === undefined || value === null)
    throw new Error(`authorization checks out of order: no ${key} yet`);
  return value as NonNullable<AuthorizationCheckContext[K]>;
}
