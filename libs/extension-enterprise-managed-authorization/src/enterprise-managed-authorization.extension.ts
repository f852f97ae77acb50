import {
  defineExtension,
  type Extension,
  type GrantHandler,
  type GrantRegistration,
} from '@portcullis/extensions';
import { idJagGrant, isIdJagRequest } from './authorization-server/id-jag.grant.js';
import type { TrustedIdentityProvider } from './authorization-server/trusted-identity-providers.js';
import type { IdJagStrategyOptions } from './client/id-jag-strategy.options.js';
import { idJagStrategy } from './client/id-jag.strategy.js';
import {
  ENTERPRISE_MANAGED_AUTHORIZATION_ID,
  ID_JAG_GRANT_PROFILE,
  ID_JAG_STRATEGY,
  ID_JAG_TOKEN_TYPE,
  JWT_BEARER_GRANT,
  TOKEN_EXCHANGE_GRANT,
} from './constants.js';
import type { IdJagAudience } from './identity-provider/id-jag-audiences.js';
import { idJagIssuance } from './identity-provider/id-jag-issuance.grant.js';

/** What each side of the extension is configured with; a side left out contributes nothing. */
export interface EnterpriseManagedAuthorizationOptions {
  /** Authorization server: the identity providers whose ID-JAGs it redeems. */
  readonly trustedIdentityProviders?: readonly TrustedIdentityProvider[];
  /**
   * Authorization server as an enterprise identity provider: the authorization servers it issues ID-JAGs for, by
   * token exchange of the ID tokens it issued to its own users' clients.
   */
  readonly identityProviderAudiences?: readonly IdJagAudience[];
  /** Client: the user's ID token and the identity provider to exchange it at. */
  readonly client?: IdJagStrategyOptions;
}

/**
 * `io.modelcontextprotocol/enterprise-managed-authorization` (MCP SEP-990).
 * - On an authorization server that trusts identity providers: the `urn:ietf:params:oauth:grant-type:jwt-bearer`
 *   grant that redeems their Identity Assertion JWT Authorization Grants (ID-JAGs), advertised with
 *   `authorization_grant_profiles_supported` (SEP-990 section 6).
 * - On an authorization server that is an enterprise identity provider: the
 *   `urn:ietf:params:oauth:grant-type:token-exchange` grant that issues ID-JAGs for other authorization servers,
 *   advertised with `identity_chaining_requested_token_types_supported` (the draft's "Authorization Server (IdP)
 *   Metadata").
 * - On the client: the strategy that obtains an ID-JAG by token exchange at the identity provider and redeems it.
 *
 * Both grants are open to clients that register themselves (dynamic registration, client ID metadata documents):
 * their authority is the identity provider's policy and the user's ID token, not the client's registration.
 *
 * @see https://github.com/modelcontextprotocol/ext-auth/blob/main/specification/draft/enterprise-managed-authorization.mdx
 */
export function enterpriseManagedAuthorization(
  options: EnterpriseManagedAuthorizationOptions = {},
): Extension {
  const trusted = options.trustedIdentityProviders ?? [];
  const audiences = options.identityProviderAudiences ?? [];
  const grantTypes: Record<string, GrantHandler | GrantRegistration> = {
    // Shared: the jwt-bearer grant also redeems other assertions (a workload's JWT, MCP SEP-1933); this extension
    // takes the ID-JAGs, by their JOSE `typ`.
    ...(trusted.length > 0
      ? { [JWT_BEARER_GRANT]: { accepts: isIdJagRequest, handle: idJagGrant(trusted) } }
      : {}),
    ...(audiences.length > 0 ? { [TOKEN_EXCHANGE_GRANT]: idJagIssuance(audiences) } : {}),
  };
  const serving = Object.keys(grantTypes).length > 0;
  return defineExtension({
    id: ENTERPRISE_MANAGED_AUTHORIZATION_ID,
    version: '0.1.0',
    ...(serving
      ? {
          authorizationServer: {
            grantTypes,
            selfRegistrableGrantTypes: Object.keys(grantTypes),
            metadata: {
              ...(trusted.length > 0
                ? { authorization_grant_profiles_supported: [ID_JAG_GRANT_PROFILE] }
                : {}),
              ...(audiences.length > 0
                ? { identity_chaining_requested_token_types_supported: [ID_JAG_TOKEN_TYPE] }
                : {}),
            },
          },
        }
      : {}),
    ...(options.client
      ? { client: { grantStrategies: { [ID_JAG_STRATEGY]: idJagStrategy(options.client) } } }
      : {}),
  });
}
