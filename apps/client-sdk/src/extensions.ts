/**
 * The extensions the command line composes, and how its options choose a client grant strategy of theirs.
 */
import {
  CLIENT_CREDENTIALS_STRATEGY,
  clientCredentialsExtension,
} from '@portcullis/extension-client-credentials';
import {
  ID_JAG_STRATEGY,
  enterpriseManagedAuthorization,
  type IdJagStrategyOptions,
} from '@portcullis/extension-enterprise-managed-authorization';
import {
  WORKLOAD_IDENTITY_STRATEGY,
  workloadIdentity,
  type WorkloadIdentityStrategyOptions,
} from '@portcullis/extension-workload-identity';
import { dpopExtension } from '@portcullis/extension-dpop';
import { ExtensionRegistry } from '@portcullis/extensions';

/**
 * `io.modelcontextprotocol/dpop` (MCP SEP-1932, RFC 9449), its client side only: DPoP for every server that accepts
 * it, with every authorization server that offers it, unless `--no-dpop`.
 */
const DPOP_CLIENT = dpopExtension({ authorizationServer: false, resourceServer: false });

/**
 * Every extension the command line offers without further configuration: `io.modelcontextprotocol/oauth-client-credentials`
 * (MCP SEP-1046, https://github.com/modelcontextprotocol/ext-auth/blob/main/specification/draft/oauth-client-credentials.mdx)
 * and DPoP.
 */
export const CLI_EXTENSIONS = ExtensionRegistry.compose([clientCredentialsExtension, DPOP_CLIENT]);

/**
 * The command line's extensions, with `io.modelcontextprotocol/enterprise-managed-authorization` (MCP SEP-990,
 * https://github.com/modelcontextprotocol/ext-auth/blob/main/specification/draft/enterprise-managed-authorization.mdx)
 * added when there is an ID token to exchange: its client strategy is configured with it.
 */
export function cliExtensions(
  idJag: IdJagStrategyOptions | undefined,
  workloadToken?: WorkloadIdentityStrategyOptions,
  dpop = true,
): ExtensionRegistry {
  if (idJag === undefined && workloadToken === undefined && dpop) return CLI_EXTENSIONS;
  return ExtensionRegistry.compose([
    clientCredentialsExtension,
    ...(idJag === undefined ? [] : [enterpriseManagedAuthorization({ client: idJag })]),
    // Workload identity federation (MCP SEP-1933, https://github.com/modelcontextprotocol/modelcontextprotocol/pull/1933).
    ...(workloadToken === undefined ? [] : [workloadIdentity({ client: workloadToken })]),
    ...(dpop ? [DPOP_CLIENT] : []),
  ]);
}

/** The strategy `--client-credentials` selects. */
export const CLIENT_CREDENTIALS = CLIENT_CREDENTIALS_STRATEGY;

/** The strategy `--id-jag` selects. */
export const ID_JAG = ID_JAG_STRATEGY;

/** The strategy `--workload-token` selects. */
export const WORKLOAD_IDENTITY = WORKLOAD_IDENTITY_STRATEGY;
