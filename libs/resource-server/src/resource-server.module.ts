import { Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { BearerAuthGuard } from './auth/bearer-auth.guard.js';
import { createBearerStrategy } from './auth/bearer.strategy.js';
import { resolveResourceServerConfig } from './config/resource-server.config.js';
import type { ResourceServerOptions } from './config/resource-server.options.js';
import { ResourceServerExceptionFilter } from './errors/resource-server-exception.filter.js';
import { BrowserCorsHook } from './http/browser-cors.hook.js';
import { createProtectedResourceMetadataController } from './metadata/protected-resource-metadata.controller.js';
import { ProtectedResourceMetadataService } from './metadata/protected-resource-metadata.service.js';
import { BEARER_STRATEGY_NAME, RESOURCE_SERVER_CONFIG } from './resource-server.constants.js';
import { AuthorizationServerDirectory } from './tokens/discovery/authorization-server-directory.js';
import { TokenIntrospector } from './tokens/introspection/token-introspector.js';
import { JwtAccessTokenValidator } from './tokens/jwt-access-token.validator.js';
import { TokenVerifier } from './tokens/token-verifier.service.js';

let instances = 0;

/**
 * Makes an app an OAuth 2.1 protected resource: Protected Resource Metadata at the resource's well-known URL,
 * bearer authentication (`@Protected()`, `@RequireScopes()`, `@ResolveScopes()`), token validation (JWT or
 * introspection), RFC 6750 error responses through one exception filter, and CORS for the configured browser
 * origins (`browserOrigins`).
 *
 * The options are validated when `forRoot` is called, so a misconfigured resource never boots; the authorization
 * servers are contacted only when the first token needs them, so it boots whether or not they are up.
 *
 * @example
 * ```ts
 * @Module({ imports: [ResourceServerModule.forRoot({ resource, authorizationServers: [issuer] })] })
 * export class AppModule {}
 * ```
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc9728 RFC 9728}
 * @see {@link https://www.rfc-editor.org/rfc/rfc6750 RFC 6750}
 */
@Module({})
export class ResourceServerModule {
  /** @throws ResourceServerConfigError when the options are unusable. */
  static forRoot(options: ResourceServerOptions): DynamicModule {
    const config = resolveResourceServerConfig(options);
    instances += 1;
    const strategyName = `portcullis-bearer-${instances}`;
    return {
      module: ResourceServerModule,
      // Global, so the guard the scope decorators apply resolves its dependencies in any feature module.
      global: true,
      controllers: [createProtectedResourceMetadataController(config.metadataPath)],
      providers: [
        { provide: RESOURCE_SERVER_CONFIG, useValue: config },
        { provide: BEARER_STRATEGY_NAME, useValue: strategyName },
        AuthorizationServerDirectory,
        JwtAccessTokenValidator,
        TokenIntrospector,
        TokenVerifier,
        createBearerStrategy(strategyName),
        BearerAuthGuard,
        ProtectedResourceMetadataService,
        BrowserCorsHook,
        { provide: APP_FILTER, useClass: ResourceServerExceptionFilter },
      ],
      exports: [
        RESOURCE_SERVER_CONFIG,
        BEARER_STRATEGY_NAME,
        BearerAuthGuard,
        TokenVerifier,
        ProtectedResourceMetadataService,
      ],
    };
  }
}
