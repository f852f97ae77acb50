// The NestJS adapter (`@portcullis/resource-server/nest`): a module, a guard, decorators and filters over the
// framework-free core. The core's types and functions are imported from `@portcullis/resource-server`.
export { ResourceServerModule } from './resource-server.module.js';
export { RESOURCE_SERVER_CONFIG, METRICS_REGISTRY } from './resource-server.constants.js';
export { BearerAuthGuard } from './bearer-auth.guard.js';
export { Protected, RequireScopes, ResolveScopes } from './scope.decorators.js';
export type { RequiredScopesResolver, RequiredScopesResolverType } from './scope-resolver.js';
export { CurrentAuth, authInfoOf } from './current-auth.decorator.js';
export { BearerChallengeFilter, ResourceServerExceptionFilter } from './resource-server-exception.filter.js';
export { ProtectedResourceMetadataService } from './protected-resource-metadata.service.js';
