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
import { ExtensionRegistry } from '@portcullis/extensions';

/**
 * Every extension the command line offers without further configuration: `io.modelcontextprotocol/oauth-client-credentials`
 * (MCP SEP-1046, https://github.com/modelcontextprotocol/ext-auth/blob/main/specification/draft/oauth-client-credentials.mdx).
 */
export const CLI_EXTENSIONS = ExtensionRegistry.compose([clientCredentialsExtension]);

/**
 * The command line's extensions, with `io.modelcontextprotocol/enterprise-managed-authorization` (MCP SEP-990,
 * https://github.com/modelcontextprotocol/ext-auth/blob/main/specification/draft/enterprise-managed-authorization.mdx)
 * added when there is an ID token to exchange: its client strategy is configured with it.
 */
export function cliExtensions(idJag: IdJagStrategyOptions | undefined): ExtensionRegistry {
  if (idJag === undefined) return CLI_EXTENSIONS;
  return ExtensionRegistry.compose([
    clientCredentialsExtension,
    enterpriseManagedAuthorization({ client: idJag }),
  ]);
}

/** The strategy `--client-credentials` selects. */
export const CLIENT_CREDENTIALS = CLIENT_CREDENTIALS_STRATEGY;

/** The strategy `--id-jag` selects. */
export const ID_JAG = ID_JAG_STRATEGY;
