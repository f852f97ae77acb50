import { Global, Module, type DynamicModule, type Provider, type Type } from '@nestjs/common';
import { APP_FILTER, RouterModule } from '@nestjs/core';
import { AuthorizeController } from './authorize/authorize.controller.js';
import { ClientAuthenticator } from './clients/client-authentication.js';
import { CLIENT_SOURCE } from './clients/client.js';
import { ClientRepository } from './clients/client.repository.js';
import { ClientResolver } from './clients/client-resolver.js';
import {
  ClientIdMetadataDocumentSource,
} from './clients/metadata-documents/client-id-metadata-document.source.js';
import {
  AUTHORIZATION_SERVER_OPTIONS,
  type AuthorizationServerOptions,
} from './config/authorization-server.options.js';
import { ConsentRepository } from './consent/consent.repository.js';
import {
  DiscoveryController,
  JwksController,
  PathAppendedDiscoveryController,
} from './discovery/discovery.controller.js';
import { MetadataService } from './discovery/metadata.service.js';
import { AuthorizationCodeGrant } from './grants/authorization-code.grant.js';
import { RefreshTokenGrant } from './grants/refresh-token.grant.js';
import { TOKEN_GRANTS } from './grants/token-grant.js';
import { HousekeepingService } from './housekeeping/housekeeping.service.js';
import { OAuthExceptionFilter } from './http/oauth-exception.filter.js';
import { AUTHENTICATOR, type Authenticator } from './interaction/authenticator.js';
import { ConsentController } from './interaction/consent.controller.js';
import { InteractionService } from './interaction/interaction.service.js';
import { LoginController } from './interaction/login.controller.js';
import { PendingAuthorizations } from './interaction/pending-authorization.js';
import { IntrospectionController } from './introspection/introspection.controller.js';
import { IntrospectionService } from './introspection/introspection.service.js';
import { IssuedTokens } from './introspection/issued-tokens.service.js';
import { SigningKeysService } from './keys/signing-keys.service.js';
import { RegistrationController } from './registration/registration.controller.js';
import { RegistrationService } from './registration/registration.service.js';
import { ResourceRegistry } from './resources/resource-registry.js';
import { RevocationController } from './revocation/revocation.controller.js';
import { RevocationService } from './revocation/revocation.service.js';
import { SessionService } from './sessions/session.service.js';
import { RATE_LIMIT_STORE, RateLimitGuard } from './throttling/rate-limit.guard.js';
import { MemoryRateLimitStore, RedisRateLimitStore } from './throttling/rate-limit.store.js';
import { GrantRepository } from './tokens/grant.repository.js';
import { TokenIssuer } from './tokens/token-issuer.service.js';
import { TokenController } from './tokens/token.controller.js';
import { UserinfoController } from './userinfo/userinfo.controller.js';
import { UserRepository } from './users/user.repository.js';

export interface AuthorizationServerModuleOptions {
  readonly options: AuthorizationServerOptions;
  /** How users sign in: the local password form, or the proxy's upstream sign-in. */
  readonly authenticator: Type<Authenticator>;
  /** Extra providers and controllers of the app (its authenticator's dependencies, its callback route). */
  readonly providers?: Provider[];
  readonly controllers?: Type<unknown>[];
}

/** The controllers under the issuer's path: every endpoint but the well-known discovery URLs. */
@Module({})
class OAuthEndpointsModule {}

/**
 * An OAuth 2.1 authorization server as NestJS modules: discovery, `/authorize` with login and consent, `/token`
 * with the authorization code and refresh token grants (and extension grants), JWKS and UserInfo. The app chooses
 * the {@link Authenticator}. Endpoints live under the issuer's path; discovery at the well-known URLs built from
 * it (RFC 8414 3.1).
 */
@Global()
@Module({})
export class AuthorizationServerModule {
  static forRoot(config: AuthorizationServerModuleOptions): DynamicModule {
    const { options } = config;
    const issuerPath = new URL(options.issuer).pathname.replace(/^\/|\/$/g, '');
    const endpoints: DynamicModule = {
      module: OAuthEndpointsModule,
      controllers: [
        AuthorizeController,
        LoginController,
        ConsentController,
        TokenController,
        IntrospectionController,
        RevocationController,
        ...(options.registration?.enabled ? [RegistrationController] : []),
        JwksController,
        UserinfoController,
        ...(issuerPath ? [PathAppendedDiscoveryController] : []),
        ...(config.controllers ?? []),
      ],
    };
    return {
      module: AuthorizationServerModule,
      imports: [
        endpoints,
        ...(issuerPath ? [RouterModule.register([{ path: issuerPath, module: OAuthEndpointsModule }])] : []),
      ],
      controllers: [DiscoveryController],
      providers: [
        { provide: AUTHORIZATION_SERVER_OPTIONS, useValue: options },
        { provide: ResourceRegistry, useValue: new ResourceRegistry(options.resources) },
        { provide: APP_FILTER, useClass: OAuthExceptionFilter },
        {
          provide: RATE_LIMIT_STORE,
          useFactory: () =>
            options.redisUrl ? new RedisRateLimitStore(options.redisUrl) : new MemoryRateLimitStore(),
        },
        RateLimitGuard,
        ClientRepository,
        ClientIdMetadataDocumentSource,
        ClientResolver,
        { provide: CLIENT_SOURCE, useExisting: ClientResolver },
        { provide: AUTHENTICATOR, useClass: config.authenticator },
        ClientAuthenticator,
        ConsentRepository,
        GrantRepository,
        HousekeepingService,
        InteractionService,
        IntrospectionService,
        IssuedTokens,
        MetadataService,
        PendingAuthorizations,
        RegistrationService,
        RevocationService,
        SessionService,
        SigningKeysService,
        TokenIssuer,
        UserRepository,
        AuthorizationCodeGrant,
        RefreshTokenGrant,
        {
          provide: TOKEN_GRANTS,
          useFactory: (...grants: unknown[]) => grants,
          inject: [AuthorizationCodeGrant, RefreshTokenGrant],
        },
        ...(config.providers ?? []),
      ],
      exports: [
        AUTHORIZATION_SERVER_OPTIONS,
        AUTHENTICATOR,
        CLIENT_SOURCE,
        RATE_LIMIT_STORE,
        TOKEN_GRANTS,
        ClientAuthenticator,
        ClientRepository,
        ConsentRepository,
        GrantRepository,
        HousekeepingService,
        InteractionService,
        IntrospectionService,
        IssuedTokens,
        MetadataService,
        PendingAuthorizations,
        RateLimitGuard,
        RegistrationService,
        RevocationService,
        ResourceRegistry,
        SessionService,
        SigningKeysService,
        TokenIssuer,
        UserRepository,
      ],
    };
  }
}
