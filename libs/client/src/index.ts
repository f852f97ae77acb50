export {
  createAuthorizedFetch,
  type AuthorizedFetch,
  type AuthorizedFetchOptions,
  type TokenSummary,
} from './authorized-fetch.js';
export {
  PORTCULLIS_ERROR_CODES,
  PortcullisError,
  findPortcullisError,
  isPortcullisError,
  type AuthorizationServerError,
  type PortcullisErrorCode,
  type PortcullisErrorDetails,
} from './errors/portcullis-error.js';
export type { PreRegisteredClient, ClientIdSource } from './client-id/client-id.resolver.js';
export {
  CLIENT_ASSERTION_ALGORITHMS,
  ClientAssertionKeyError,
  importClientAssertionKey,
  type ClientAssertionAlgorithm,
  type ClientAssertionKey,
  type ClientAssertionKeyOptions,
} from './client-auth/client-assertion-key.js';
export { applicationTypeFor, type ClientRegistrationMetadata } from './client-id/registration.endpoint.js';
export { readBearerChallenge, type BearerChallenge } from './discovery/bearer-challenge.js';
export {
  discoverResourceMetadata,
  type DiscoveredResourceMetadata,
} from './discovery/resource-metadata.discovery.js';
export {
  discoverAuthorizationServer,
  type DiscoveredAuthorizationServer,
} from './discovery/authorization-server.discovery.js';
export type { AuthorizationServerSelector } from './flow/authorization-flow.js';
export type { SelectedGrantStrategy } from './flow/grant-strategy.js';
export { CALLBACK_CHECKS, checkAuthorizationResponse } from './flow/authorization-response.js';
export type { PendingAuthorization } from './flow/authorization-request.js';
export {
  OFFLINE_ACCESS,
  selectInitialScopes,
  selectStepUpScopes,
  withOfflineAccess,
} from './flow/scope-selection.js';
export type { FetchLike } from './http/http.js';
export {
  mcpClientCapabilities,
  mcpTransportOptions,
  type McpClientCapabilities,
  type McpTransportAuthorizationOptions,
} from './mcp/mcp-transport.adapter.js';
export {
  callToolWithUrlElicitation,
  handleUrlElicitations,
  URL_ELICITATION_CAPABILITY,
  URL_ELICITATION_REQUIRED,
  UrlElicitationNotCompletedError,
  type ElicitationReceiver,
  type ToolCaller,
  type UrlElicitation,
  type UrlElicitationHandler,
} from './mcp/url-elicitation.js';
export type { ProgressEvent, ProgressListener, ProgressStep } from './progress.js';
export { FileTokenStore, type FileTokenStoreOptions } from './store/file-token-store.js';
export { MemoryTokenStore } from './store/memory-token-store.js';
export { TOKEN_KEY_ENV } from './store/token-encryption.js';
export type {
  StoredClient,
  StoredServerMetadata,
  StoredTokenSet,
  TokenEndpointAuthMethod,
  TokenSetKey,
  TokenStore,
} from './store/token-store.js';
export {
  BrowserUserAgent,
  openSystemBrowser,
  type BrowserUserAgentOptions,
} from './user-agent/browser-user-agent.js';
export { HeadlessUserAgent, type HeadlessUserAgentOptions } from './user-agent/headless-user-agent.js';
export type { UserAgent, UserAgentSession } from './user-agent/user-agent.js';
export {
  diagnose,
  type CheckReference,
  type CheckStatus,
  type DoctorCheck,
  type DoctorOptions,
  type DoctorReport,
  type PresentedToken,
} from './doctor/doctor.js';
