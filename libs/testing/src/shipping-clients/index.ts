export * from './shipping-client.js';
export { driveShippingClient, ShippingClientError } from './driver.js';
export type { DriveOptions, Person, ShippingClientRun } from './driver.js';
export { startClientDocumentHost } from './client-document-host.js';
export type { ClientDocumentHost, MappedAddress } from './client-document-host.js';
export type { ListedNote, NotesToolCalls } from './notes-tool-calls.js';
export { CLAUDE_CODE_DOCUMENT, CLAUDE_CODE_METADATA_DOCUMENT, claudeCode } from './claude-code.js';
export type { ClaudeCodeOptions } from './claude-code.js';
export {
  CLAUDE_AI_CALLBACK,
  claudeAiRegistration,
  CURSOR_REDIRECT,
  cursorRegistration,
  DEVICE_CODE_GRANT,
  MCP_SDK_V1_APP_REGISTRATION,
  VSCODE_DEFAULT_PORT,
  vscodeRegistration,
} from './registrations.js';
export {
  CLAUDE_COM_CALLBACK,
  CLAUDE_HOSTED_DOCUMENT,
  CLAUDE_HOSTED_METADATA_DOCUMENT,
  claudeHosted,
} from './claude-hosted.js';
export {
  CHATGPT_DOCUMENT,
  CHATGPT_JWKS_URI,
  CHATGPT_METADATA_DOCUMENT,
  CHATGPT_OIDC_SCOPES,
  CHATGPT_REDIRECT,
  chatgpt,
} from './chatgpt.js';
export { CODEX_DOCUMENT, CODEX_METADATA_DOCUMENT, codex, codexCallbackId } from './codex.js';
export { VSCODE_DOCUMENT, VSCODE_METADATA_DOCUMENT, visualStudioCode } from './vscode.js';
export type { VisualStudioCodeOptions } from './vscode.js';
export { cursor } from './cursor.js';
export { GOOSE_DOCUMENT, GOOSE_METADATA_DOCUMENT, goose } from './goose.js';
export { INSPECTOR_BROWSER_PORT, INSPECTOR_COMMAND_LINE_PORT, mcpInspector } from './mcp-inspector.js';
export type { McpInspectorOptions } from './mcp-inspector.js';
