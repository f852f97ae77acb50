import { defineExtension, type Extension } from '@portcullis/extensions';
import { idJagGrant } from './authorization-server/id-jag.grant.js';
import type { TrustedIdentityProvider } from './authorization-server/trusted-identity-providers.js';
import { idJagStrategy, type IdJagStrategyOptions } from './client/id-jag.strategy.js';
import { ENTERPRISE_MANAGED_AUTHORIZATION_ID, ID_JAG_STRATEGY, JWT_BEARER_GRANT } from './constants.js';

/** What each side of the extension is configured with; a side left out contributes nothing. */
export interface EnterpriseManagedAuthorizationOptions {
  /** Authorization server: the identity providers whose ID-JAGs it redeems. */
  readonly trustedIdentityProviders?: readonly TrustedIdentityProvider[];
  /** Client: the user's ID token and the identity provider to exchange it at. */
  readonly client?: IdJagStrategyOptions;
}

/**
 * `io.modelcontextprotocol/enterprise-managed-authorization` (MCP SEP-990): on the authorization server, the
 * `urn:ietf:params:oauth:grant-type:jwt-bearer` grant that redeems Identity Assertion JWT Authorization Grants from
 * trusted identity providers; on the client, the strategy that obtains one by token exchange at the identity
 * provider and redeems it.
 *
 * @see https://github.com/modelcontextprotocol/ext-auth/blob/main/specification/draft/enterprise-managed-authorization.mdx
 */
export function enterpriseManagedAuthorization(
  options: EnterpriseManagedAuthorizationOptions = {},
): Extension {
  const trusted = options.trustedIdentityProviders ?? [];
  return defineExtension({
    id: ENTERPRISE_MANAGED_AUTHORIZATION_ID,
    version: '0.1.0',
    ...(trusted.length > 0
      ? { authorizationServer: { grantTypes: { [JWT_BEARER_GRANT]: idJagGrant(trusted) } } }
      : {}),
    ...(options.client
      ? { client: { grantStrategies: { [ID_JAG_STRATEGY]: idJagStrategy(options.client) } } }
      : {}),
  });
}
