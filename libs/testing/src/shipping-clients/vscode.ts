// Visual Studio Code (GitHub Copilot's MCP client), replayed.
//
// - Client ID metadata document `https://vscode.dev/oauth/client-metadata.json` where the server advertises
//   metadata documents: `native`, `none`, grant types with the device-code grant, `redirect_uris`
//   `http://127.0.0.1:33418/` and `https://vscode.dev/redirect`: https://github.com/stacklok/toolhive/issues/6290,
//   https://www.keycloak.org/securing-apps/mcp-authz-server, https://github.com/microsoft/vscode/issues/279955.
// - Dynamic registration otherwise, as `fetchDynamicRegistration` builds it: client_name, client_uri
//   `https://code.visualstudio.com`, the server's `grant_types_supported` filtered to `authorization_code`,
//   `refresh_token` and the device-code grant (all three when the server lists none), `code`, the redirect URIs
//   `https://insiders.vscode.dev/redirect`, `https://vscode.dev/redirect`, `http://127.0.0.1/` and
//   `http://127.0.0.1:33418/`, the scope, `none`, `application_type: native`:
//   https://github.com/microsoft/vscode/blob/main/src/vs/base/common/oauth.ts. VS Code 1.104 sent the fixed grant
//   list with the device-code grant and six redirect URIs (`localhost` ones too), the `version: '1.104'` variant:
//   https://github.com/PrefectHQ/fastmcp/issues/1868.
// - Redirect: its loopback server on 127.0.0.1, port 33418 (`DEFAULT_AUTH_FLOW_PORT`) when free, another port
//   otherwise, path `/`: same file; https://code.visualstudio.com/api/extension-guides/ai/mcp.
// - Authorization request: client_id, response_type, code_challenge, S256, scope (the challenge's, else the
//   resource's), resource, redirect_uri, state; `resource` again at the token endpoint, public client:
//   https://github.com/microsoft/vscode (src/vs/workbench/api/common/extHostAuthentication.ts,
//   `DynamicAuthProvider`), https://github.com/PrefectHQ/fastmcp/issues/1868.
import {
  advertisesMetadataDocuments,
  challengeScopes,
  present,
  stringList,
  type Discovery,
  type RegistrationChoice,
  type ShippingClient,
} from './shipping-client.js';

import { DEVICE_CODE_GRANT, VSCODE_DEFAULT_PORT, vscodeRegistration } from './registrations.js';

export const VSCODE_METADATA_DOCUMENT = 'https://vscode.dev/oauth/client-metadata.json';

/** VS Code's document, in its published order. */
export const VSCODE_DOCUMENT = Object.freeze({
  client_name: 'Visual Studio Code',
  logo_uri: 'https://code.visualstudio.com/assets/branding/code-stable.png',
  grant_types: ['authorization_code', 'refresh_token', DEVICE_CODE_GRANT],
  response_types: ['code'],
  token_endpoint_auth_method: 'none',
  application_type: 'native',
  client_id: VSCODE_METADATA_DOCUMENT,
  client_uri: 'https://vscode.dev/product',
  redirect_uris: [`http://127.0.0.1:${VSCODE_DEFAULT_PORT}/`, 'https://vscode.dev/redirect'],
});

export interface VisualStudioCodeOptions {
  /** `current` (the default) or `1.104`, which registered differently and had no metadata document. */
  readonly version?: 'current' | '1.104';
}

function scopeOf(discovery: Discovery): string | undefined {
  const scopes = challengeScopes(discovery);
  const selected = scopes.length > 0 ? scopes : stringList(discovery.resourceMetadata, 'scopes_supported');
  return selected.join(' ') || undefined;
}

function registrationBody(discovery: Discovery, version: 'current' | '1.104'): Record<string, unknown> {
  const scope = scopeOf(discovery);
  if (version === '1.104') {
    return {
      client_name: 'Visual Studio Code',
      client_uri: 'https://code.visualstudio.com',
      grant_types: ['authorization_code', 'refresh_token', DEVICE_CODE_GRANT],
      response_types: ['code'],
      redirect_uris: [
        'https://insiders.vscode.dev/redirect',
        'https://vscode.dev/redirect',
        'http://localhost/',
        'http://127.0.0.1/',
        `http://localhost:${VSCODE_DEFAULT_PORT}/`,
        `http://127.0.0.1:${VSCODE_DEFAULT_PORT}/`,
      ],
      ...(scope ? { scope } : {}),
      token_endpoint_auth_method: 'none',
      application_type: 'native',
    };
  }
  return vscodeRegistration({
    ...(scope ? { scope } : {}),
    grantTypesSupported: discovery.serverMetadata['grant_types_supported'],
  });
}

export function visualStudioCode(options: VisualStudioCodeOptions = {}): ShippingClient {
  const version = options.version ?? 'current';
  return {
    name: version === 'current' ? 'VS Code' : 'VS Code 1.104',
    documents: async () => ({ [VSCODE_METADATA_DOCUMENT]: VSCODE_DOCUMENT }),
    register(discovery): RegistrationChoice {
      if (version === 'current' && advertisesMetadataDocuments(discovery)) {
        return { kind: 'metadata-document', clientId: VSCODE_METADATA_DOCUMENT };
      }
      const body = registrationBody(discovery, version);
      return { kind: 'dynamic', body: () => body };
    },
    redirect: () => ({ kind: 'loopback', host: '127.0.0.1', path: '/', port: VSCODE_DEFAULT_PORT }),
    authorizationParameters: (discovery, input) =>
      present([
        ['client_id', input.clientId],
        ['response_type', 'code'],
        ['code_challenge', input.codeChallenge],
        ['code_challenge_method', 'S256'],
        ['scope', scopeOf(discovery)],
        ['resource', discovery.resource],
        ['redirect_uri', input.redirectUri],
        ['state', input.state],
      ]),
    tokenParameters: (discovery, input) =>
      present([
        ['code', input.code],
        ['grant_type', 'authorization_code'],
        ['redirect_uri', input.redirectUri],
        ['code_verifier', input.codeVerifier],
        ['resource', discovery.resource],
      ]),
    authentication: () => 'none',
  };
}
