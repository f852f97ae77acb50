// The MCP Inspector (2.x), in the browser and from its command line, replayed.
//
// - Dynamic registration (a metadata document only when the user names one): `redirect_uris` the one callback,
//   `none`, `authorization_code` and `refresh_token`, `code`, client_name "MCP Inspector", client_uri
//   `https://github.com/modelcontextprotocol/inspector`, the scope it will ask for (`""` before it knows one),
//   `application_type: native`: https://github.com/modelcontextprotocol/inspector/blob/main/core/auth/providers.ts
//   (`clientMetadata`).
// - Redirects: `http://localhost:6274/oauth/callback` in the browser (the web app's origin), and
//   `http://127.0.0.1:6276/oauth/callback` from the command line and the TUI (a loopback listener on port 6276,
//   fixed so that it can be pre-registered): clients/web/src/components/groups/ClientSettingsForm/ClientSettingsForm.tsx,
//   core/auth/node/runner-oauth-callback.ts (`RUNNER_OAUTH_CALLBACK_DEFAULT_PORT`), same repository.
// - Requests as the MCP TypeScript SDK builds them (mcp-typescript-sdk.ts), scope the challenge's, else the
//   resource's, with `offline_access` when offered.
import { sdkAuthorizationParameters, sdkTokenParameters } from './mcp-typescript-sdk.js';
import { sdkScopeSelection, type ShippingClient } from './shipping-client.js';

export const INSPECTOR_BROWSER_PORT = 6274;
export const INSPECTOR_COMMAND_LINE_PORT = 6276;

export interface McpInspectorOptions {
  /** `browser` (the web app) or `command-line` (the CLI and the TUI). */
  readonly surface: 'browser' | 'command-line';
}

export function mcpInspector(options: McpInspectorOptions): ShippingClient {
  const browser = options.surface === 'browser';
  return {
    name: browser ? 'MCP Inspector (browser)' : 'MCP Inspector (command line)',
    documents: async () => ({}),
    register: (discovery) => ({
      kind: 'dynamic',
      body: (redirectUri) => ({
        redirect_uris: [redirectUri],
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        client_name: 'MCP Inspector',
        client_uri: 'https://github.com/modelcontextprotocol/inspector',
        scope: sdkScopeSelection(discovery).join(' '),
        application_type: 'native',
      }),
    }),
    redirect: () =>
      browser
        ? { kind: 'loopback', host: 'localhost', path: '/oauth/callback', port: INSPECTOR_BROWSER_PORT }
        : { kind: 'loopback', host: '127.0.0.1', path: '/oauth/callback', port: INSPECTOR_COMMAND_LINE_PORT },
    authorizationParameters: (discovery, input) =>
      sdkAuthorizationParameters(input, sdkScopeSelection(discovery), discovery.resource),
    tokenParameters: (discovery, input) => sdkTokenParameters(input, discovery.resource),
    authentication: () => 'none',
  };
}
