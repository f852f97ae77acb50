import type { ExtensionCatalogue } from '@portcullis/platform';
import { clientCredentialsExtension } from '@portcullis/extension-client-credentials';
import { dpopAuthorizationServerFromEnv, type DpopAuthorizationServerEnv } from '@portcullis/extension-dpop';
import {
  enterpriseManagedAuthorization,
  type IdJagAudience,
  type TrustedIdentityProvider,
} from '@portcullis/extension-enterprise-managed-authorization';
import { workloadIdentity, type TrustedWorkloadIssuer } from '@portcullis/extension-workload-identity';

/**
 * The extensions built into this app, by the name `EXTENSIONS` uses (comma-separated; see docs/extensions.md's
 * configuration table). Adding an extension package to the app is one line here; a team's own package needs no line:
 * `EXTENSIONS` names it, installed in `EXTENSIONS_DIR`.
 *
 * @see https://modelcontextprotocol.io/extensions/overview
 */
export const AVAILABLE_EXTENSIONS: ExtensionCatalogue<
  {
    ENTERPRISE_IDPS: readonly TrustedIdentityProvider[];
    ENTERPRISE_IDP_AUDIENCES: readonly IdJagAudience[];
    WORKLOAD_IDENTITY_ISSUERS: readonly TrustedWorkloadIssuer[];
  } & DpopAuthorizationServerEnv
> = {
  // io.modelcontextprotocol/oauth-client-credentials (MCP SEP-1046)
  'client-credentials': clientCredentialsExtension,
  // io.modelcontextprotocol/enterprise-managed-authorization (MCP SEP-990): redeems ID-JAGs from ENTERPRISE_IDPS, and
  // issues ID-JAGs for the authorization servers of ENTERPRISE_IDP_AUDIENCES (this server as the enterprise IdP)
  'enterprise-managed-authorization': (env) =>
    enterpriseManagedAuthorization({
      trustedIdentityProviders: env.ENTERPRISE_IDPS,
      identityProviderAudiences: env.ENTERPRISE_IDP_AUDIENCES,
    }),
  // Workload identity federation (MCP SEP-1933): workloads of WORKLOAD_IDENTITY_ISSUERS present their platform's JWT
  // with the jwt-bearer grant, which it shares with enterprise-managed authorization
  'workload-identity': (env) => workloadIdentity({ trustedIssuers: env.WORKLOAD_IDENTITY_ISSUERS }),
  // io.modelcontextprotocol/dpop (MCP SEP-1932, RFC 9449): DPoP proofs at the token endpoint and tokens bound to
  // their key; DPOP_REQUIRED, DPOP_NONCE, DPOP_NONCE_SECRET, DPOP_PROOF_MAX_AGE
  dpop: dpopAuthorizationServerFromEnv,
};
