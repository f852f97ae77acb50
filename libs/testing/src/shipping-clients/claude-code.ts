// Claude Code (the CLI), replayed.
//
// - Client ID metadata document at https://claude.ai/oauth/claude-code-client-metadata, used since 2.1.81 when the
//   server advertises `client_id_metadata_document_supported`, dynamic registration otherwise:
//   https://github.com/anthropics/claude-code/issues/36861 (changelog 2.1.81),
//   https://github.com/render-oss/render-mcp-server/issues/25 (neither advertised: "does not support dynamic
//   client registration").
// - The document's `redirect_uris` are the portless `http://localhost/callback` and `http://127.0.0.1/callback`
//   while the requests use `http://localhost:<ephemeral port>/callback`; its body (public client, `none`, no
//   `application_type`): https://github.com/anthropics/claude-code/issues/37747,
//   https://github.com/anthropics/claude-code/issues/42301, https://github.com/anthropics/claude-code/issues/44378,
//   https://github.com/anthropics/claude-code/issues/64705.
// - Its dynamic registration: `client_name` "Claude Code (<server name>)", the loopback redirect with its port,
//   `none`, `application_type: native` (the MCP TypeScript SDK it is built on, SEP-837), as captured in
//   https://github.com/elmohq/elmo/pull/684.
// - Scope: the 401 challenge's `scope`, else the resource's `scopes_supported`, with `offline_access` appended when
//   the server offers it: https://code.claude.com/docs/en/mcp, https://github.com/anthropics/claude-code/issues/41610.
// - Requests as the MCP TypeScript SDK builds them (mcp-typescript-sdk.ts): PKCE S256, `prompt=consent` with
//   `offline_access`, `resource` on both requests. Some versions send no `resource` on either request (the
//   `resource: 'omitted'` variant): https://github.com/anthropics/claude-code/issues/10572,
//   https://github.com/anthropics/claude-code/issues/90497 (2.1.251).
import { sdkAuthorizationParameters, sdkTokenParameters } from './mcp-typescript-sdk.js';
import {
  advertisesMetadataDocuments,
  sdkScopeSelection,
  type Discovery,
  type RegistrationChoice,
  type ShippingClient,
} from './shipping-client.js';

export const CLAUDE_CODE_METADATA_DOCUMENT = 'https://claude.ai/oauth/claude-code-client-metadata';

/** The document as Claude Code publishes it (fetched by the reporters above). */
export const CLAUDE_CODE_DOCUMENT = Object.freeze({
  client_id: CLAUDE_CODE_METADATA_DOCUMENT,
  client_name: 'Claude Code',
  client_uri: 'https://claude.ai',
  redirect_uris: ['http://localhost/callback', 'http://127.0.0.1/callback'],
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  token_endpoint_auth_method: 'none',
});

export interface ClaudeCodeOptions {
  /** Whether this version sends RFC 8707 `resource` (default `sent`). */
  readonly resource?: 'sent' | 'omitted';
  /** The server's name in the user's configuration, part of the registered `client_name`. */
  readonly serverName?: string;
}

export function claudeCode(options: ClaudeCodeOptions = {}): ShippingClient {
  const sendsResource = (options.resource ?? 'sent') === 'sent';
  const resourceOf = (discovery: Discovery) => (sendsResource ? discovery.resource : undefined);
  return {
    name: sendsResource ? 'Claude Code' : 'Claude Code (a version without resource)',
    documents: async () => ({ [CLAUDE_CODE_METADATA_DOCUMENT]: CLAUDE_CODE_DOCUMENT }),
    register(discovery): RegistrationChoice {
      if (advertisesMetadataDocuments(discovery)) {
        return { kind: 'metadata-document', clientId: CLAUDE_CODE_METADATA_DOCUMENT };
      }
      return {
        kind: 'dynamic',
        body: (redirectUri) => ({
          client_name: `Claude Code (${options.serverName ?? 'notes'})`,
          redirect_uris: [redirectUri],
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          token_endpoint_auth_method: 'none',
          application_type: 'native',
        }),
      };
    },
    redirect: () => ({ kind: 'loopback', host: 'localhost', path: '/callback' }),
    authorizationParameters: (discovery, input) =>
      sdkAuthorizationParameters(input, sdkScopeSelection(discovery), resourceOf(discovery)),
    tokenParameters: (discovery, input) => sdkTokenParameters(input, resourceOf(discovery)),
    authentication: () => 'none',
  };
}
