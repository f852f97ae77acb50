// The dynamic registration bodies shipping clients send, byte for byte, shared by their replays (`vscode.ts`,
// `claude-hosted.ts`, `cursor.ts`) and the registration tests of the authorization server and the proxy. Each body's
// source is named in the leading comment of its client's file; the MCP SDK v1 app's is the SDK's example client
// (https://github.com/modelcontextprotocol/typescript-sdk/blob/v1.x/src/examples/client/simpleOAuthClient.ts), whose
// metadata `registerClient` posts unchanged, as apps on it (LangChain's MCP adapters) do.

/** RFC 8628's grant type, which VS Code lists among its grant types. */
export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
/** The port VS Code tries first, so that servers matching redirect URIs exactly still work. */
export const VSCODE_DEFAULT_PORT = 33418;
/** claude.ai's callback, the redirect of its registration and of its metadata document. */
export const CLAUDE_AI_CALLBACK = 'https://claude.ai/api/mcp/auth_callback';
export const CURSOR_REDIRECT = 'cursor://anysphere.cursor-mcp/oauth/callback';

const VSCODE_GRANT_TYPES = ['authorization_code', 'refresh_token', DEVICE_CODE_GRANT];

/**
 * VS Code's `fetchDynamicRegistration`: the server's `grant_types_supported` filtered to its three grant types (all
 * three when the server lists none), the four redirect URIs, the scope when it has one, `none`, `native`.
 */
export function vscodeRegistration(options: { scope?: string; grantTypesSupported?: unknown } = {}) {
  const offered = options.grantTypesSupported;
  return {
    client_name: 'Visual Studio Code',
    client_uri: 'https://code.visualstudio.com',
    grant_types: Array.isArray(offered)
      ? offered.filter((grant): grant is string => VSCODE_GRANT_TYPES.includes(grant as string))
      : VSCODE_GRANT_TYPES,
    response_types: ['code'],
    redirect_uris: [
      'https://insiders.vscode.dev/redirect',
      'https://vscode.dev/redirect',
      'http://127.0.0.1/',
      `http://127.0.0.1:${VSCODE_DEFAULT_PORT}/`,
    ],
    ...(options.scope ? { scope: options.scope } : {}),
    token_endpoint_auth_method: 'none',
    application_type: 'native',
  };
}

/** claude.ai and Claude Desktop where metadata documents are off: `client_secret_post`, no application_type. */
export function claudeAiRegistration(redirectUri: string = CLAUDE_AI_CALLBACK) {
  return {
    client_name: 'Claude',
    redirect_uris: [redirectUri],
    token_endpoint_auth_method: 'client_secret_post',
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
  };
}

/** Cursor: its private-use redirect, `none`, no application_type. */
export function cursorRegistration(redirectUri: string = CURSOR_REDIRECT) {
  return {
    client_name: 'Cursor',
    redirect_uris: [redirectUri],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  };
}

/** An app on the MCP TypeScript SDK v1: the SDK example client's metadata, which has no application_type. */
export const MCP_SDK_V1_APP_REGISTRATION = Object.freeze({
  client_name: 'Simple OAuth MCP Client',
  redirect_uris: ['http://localhost:8090/callback'],
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  token_endpoint_auth_method: 'client_secret_post',
});
