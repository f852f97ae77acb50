export { ResourceServerModule } from './resource-server.module.js';
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
export { RESOURCE_SERVER_CONFIG } from './resource-server.constants.js';
export type { AuthInfo } from './auth/auth-info.js';
export type { BearerRequest } from './auth/bearer-request.js';
export { BearerAuthGuard } from './auth/bearer-auth.guard.js';
export { Protected, RequireScopes, ResolveScopes } from './auth/scope.decorators.js';
export type { RequiredScopesResolver, RequiredScopesResolverType } from './auth/scope-resolver.js';
export { CurrentAuth, authInfoOf } from './auth/current-auth.decorator.js';
export { TokenVerifier } from './tokens/token-verifier.service.js';
export { BearerChallengeError } from './errors/bearer-challenge.error.js';
export { bearerChallenge, type BearerChallengeInput } from './errors/bearer-challenge.js';
export type { PresentedCredentials } from './auth/checks/authorization-header.check.js';
export { ResourceServerExceptionFilter } from './errors/resource-server-exception.filter.js';
export { ProtectedResourceMetadataService } from './metadata/protected-resource-metadata.service.js';
export { BrowserOrigins, webOriginProblem, type BrowserOriginsOptions } from './http/browser-origins.js';
export { CORS_ALLOWED_REQUEST_HEADERS, CORS_EXPOSED_HEADERS } from './http/browser-cors.hook.js';
