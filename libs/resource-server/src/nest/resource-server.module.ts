import { Inject, Module, type DynamicModule, type NestModule } from '@nestjs/common';
import { RequestAuthenticator } from '../auth/request-authenticator.js';
import { resolveResourceServerConfig, type ResourceServerConfig } from '../config/resource-server.config.js';
import type { ResourceServerOptions } from '../config/resource-server.options.js';
import { presentedVerdict, TokenVerifier } from '../tokens/token-verifier.service.js';
import { AuthorizationServerDirectory } from '../tokens/discovery/authorization-server-directory.js';
import { UpstreamTokenExchange } from '../exchange/upstream-token-exchange.js';
import { BearerAuthGuard } from './bearer-auth.guard.js';
import { createBearerStrategy, passportValidation } from './bearer.strategy.js';
import { RouteAuthenticationHook } from './route-authentication.hook.js';
import { BrowserCorsHook } from './browser-cors.hook.js';
import { createProtectedResourceMetadataController } from './protected-resource-metadata.controller.js';
import { ProtectedResourceMetadataService } from './protected-resource-metadata.service.js';
import { BEARER_STRATEGY_NAME, RESOURCE_SERVER_CONFIG } from './resource-server.constants.js';

let instances = 0;

/**
 * Makes a NestJS app (Fastify platform) an OAuth 2.1 protected resource, as an adapter over the framework-free
 * core: Protected Resource Metadata at the resource's well-known URL, bearer authentication (`@Protected()`,
 * `@RequireScopes()`, `@ResolveScopes()`), token validation (JWT or introspection), RFC 6750 error responses on the
 * routes it guards, and CORS for the configured browser origins (`browserOrigins`).
 *
 * It installs no app-wide exception filter: the guard's refusals are answered by `BearerChallengeFilter` on the
 * guarded routes only, and the host app's own errors (its 404s, its `HttpException`s) stay its own. An app that
 * wants the RFC 6750 format everywhere provides `ResourceServerExceptionFilter` as its `APP_FILTER`.
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
export class ResourceServerModule implements NestModule {
  constructor(@Inject(RouteAuthenticationHook) private readonly routes: RouteAuthenticationHook) {}

  // Nest configures middleware once the HTTP adapter is there and before it registers any route: the moment to
  // start watching the routes for the protected ones.
  configure(): void {
    this.routes.attach();
  }

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
        {
          provide: AuthorizationServerDirectory,
          useFactory: (resolved: ResourceServerConfig) => new AuthorizationServerDirectory(resolved),
          inject: [RESOURCE_SERVER_CONFIG],
        },
        {
          provide: TokenVerifier,
          useFactory: (resolved: ResourceServerConfig, directory: AuthorizationServerDirectory) =>
            new TokenVerifier(resolved, directory),
          inject: [RESOURCE_SERVER_CONFIG, AuthorizationServerDirectory],
        },
        {
          // `upstreamToken(auth, connection)`: the user's upstream token, by RFC 8693 exchange.
          provide: UpstreamTokenExchange,
          useFactory: (resolved: ResourceServerConfig, directory: AuthorizationServerDirectory) =>
            new UpstreamTokenExchange(resolved, directory),
          inject: [RESOURCE_SERVER_CONFIG, AuthorizationServerDirectory],
        },
        {
          provide: RequestAuthenticator,
          // A token whose verdict is cached is not shown to passport again: its strategy would only hand it to the
          // verifier, which answers from the same cache (and passport builds its middleware on every call).
          useFactory: (resolved: ResourceServerConfig, verifier: TokenVerifier) => {
            const viaPassport = passportValidation(strategyName);
            // The authenticator hands over a token read from the Authorization header (its syntax checked).
            return new RequestAuthenticator(
              resolved,
              verifier,
              (token) => presentedVerdict(verifier, token) ?? viaPassport(token),
            );
          },
          inject: [RESOURCE_SERVER_CONFIG, TokenVerifier],
        },
        createBearerStrategy(strategyName),
        BearerAuthGuard,
        RouteAuthenticationHook,
        ProtectedResourceMetadataService,
        BrowserCorsHook,
      ],
      exports: [
        RESOURCE_SERVER_CONFIG,
        TokenVerifier,
        UpstreamTokenExchange,
        RequestAuthenticator,
        BearerAuthGuard,
        ProtectedResourceMetadataService,
      ],
    };
  }
}
