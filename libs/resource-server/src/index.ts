// The framework-free core: no web framework is imported here or below, except under ./nest and ./express (the
// adapters, published as the subpaths `@portcullis/resource-server/nest` and `/express`).
export {
  createResourceServer,
  resourceServerFor,
  type CreateResourceServerOptions,
  type ProtectedContext,
  type ProtectedHandler,
  type ProtectOptions,
  type ResourceServer,
  type ResourceServerLogger,
  type WebHandler,
} from './resource-server.js';
export { createTokenVerifier, mcpTokenVerifier, type ResourceTokenVerifier } from './mcp/token-verifier.js';
export { toMcpAuthInfo, type McpAuthInfoExtra } from './mcp/mcp-auth-info.js';
export type {
  IntrospectionOptions,
  ResourceServerOptions,
  TokenOptions,
  TokenValidationMode,
} from './config/resource-server.options.js';
export {
  ASYMMETRIC_JWS_ALGORITHMS,
  ResourceServerConfigError,
  resolveResourceServerConfig,
  type ResolvedTokenOptions,
  type ResourceServerConfig,
} from './config/resource-server.config.js';
export type { AuthInfo } from './auth/auth-info.js';
export type { BearerRequest } from './auth/bearer-request.js';
export { RequestAuthenticator, type RequiredScopes } from './auth/request-authenticator.js';
export type { PresentedCredentials } from './auth/checks/authorization-header.check.js';
export { TokenVerifier } from './tokens/token-verifier.service.js';
export {
  ConnectionRequiredError,
  UpstreamTokenError,
  UpstreamTokenExchange,
  type UpstreamAccessToken,
} from './exchange/upstream-token-exchange.js';
export { carryPresentedToken } from './exchange/presented-token.js';
export { AuthorizationServerDirectory } from './tokens/discovery/authorization-server-directory.js';
export { BearerChallengeError } from './errors/bearer-challenge.error.js';
export { bearerChallenge, type BearerChallengeInput } from './errors/bearer-challenge.js';
export { refusalResponse, serverErrorResponse, type RefusalResponse } from './errors/refusal.js';
export {
  METADATA_PREFLIGHT_HEADERS,
  METADATA_RESPONSE_HEADERS,
  protectedResourceMetadata,
} from './metadata/protected-resource-metadata.js';
export { BrowserOrigins, webOriginProblem, type BrowserOriginsOptions } from './http/browser-origins.js';
export {
  browserAccess,
  CORS_ALLOWED_REQUEST_HEADERS,
  CORS_EXPOSED_HEADERS,
  type BrowserAccess,
  type BrowserRequest,
} from './http/browser-cors.js';
