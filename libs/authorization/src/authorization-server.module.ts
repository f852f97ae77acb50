import {
  Global,
  Inject,
  Module,
  type DynamicModule,
  type NestModule,
  type Provider,
  type Type,
} from '@nestjs/common';
import { APP_FILTER, RouterModule } from '@nestjs/core';
import { AuthorizeController } from './authorize/authorize.controller.js';
import { interactionController } from './authorize/flow/interaction.controller.js';
import { INTERACTION_STEPS, type InteractionStepType } from './authorize/flow/interaction-step.js';
import { InteractionService } from './authorize/flow/interaction.service.js';
import { PendingAuthorizations } from './authorize/flow/pending-authorization.repository.js';
import { RedirectTrust } from './authorize/flow/redirect-trust.js';
import { ConsentStep } from './authorize/steps/consent.step.js';
import { LoopbackConfirmationStep } from './authorize/steps/loopback-confirmation.step.js';
import { PasswordSignInStep } from './authorize/steps/password-sign-in.step.js';
import { ClientAuthenticator } from './clients/client-authentication.js';
import { UsedJwtIds } from './clients/client-assertions/used-jwt-id.repository.js';
import { ClientAssertionVerifier } from './clients/client-assertions/client-assertion.verifier.js';
import { CLIENT_SOURCE, type ClientSource } from './clients/client.js';
import { ClientRepository } from './clients/client.repository.js';
import { ClientResolver } from './clients/client-resolver.js';
import { ClientIdMetadataDocumentSource } from './clients/metadata-documents/client-id-metadata-document.source.js';
import { PrivateUseSchemesNotice } from './clients/private-use-schemes.notice.js';
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
import { extensionGrants } from './grants/extension.grant.js';
import { ExtensionJwts } from './grants/extension-jwts.service.js';
import { TOKEN_GRANTS, type TokenGrant } from './grants/token-grant.js';
import { HousekeepingRepository } from './housekeeping/housekeeping.repository.js';
import { HousekeepingService } from './housekeeping/housekeeping.service.js';
import { OAuthExceptionFilter } from './http/oauth-exception.filter.js';
import { IntrospectionController } from './introspection/introspection.controller.js';
import { IntrospectionService } from './introspection/introspection.service.js';
import { IssuedTokens } from './introspection/issued-tokens.service.js';
import { SigningKeyRepository } from './keys/signing-key.repository.js';
import { SigningKeysService } from './keys/signing-keys.service.js';
import { RemoteKeySets } from './keys/remote-key-sets.js';
import { RegistrationController } from './registration/registration.controller.js';
import { RegistrationService } from './registration/registration.service.js';
import { ResourceRegistry } from './resources/resource-registry.js';
import { RevocationController } from './revocation/revocation.controller.js';
import { RevocationService } from './revocation/revocation.service.js';
import { SessionRepository } from './sessions/session.repository.js';
import { SessionService } from './sessions/session.service.js';
import { RATE_LIMIT_STORE } from './throttling/rate-limit.js';
import { RoutePrologueHook } from './http/route-prologue.js';
import { MemoryRateLimitStore, RedisRateLimitStore } from './throttling/rate-limit.store.js';
import { AccountController } from './account/account.controller.js';
import { ACCOUNT_SECTIONS, checkAccountSections, type AccountSection } from './account/account-section.js';
import { AccountSectionsController } from './account/account-sections.controller.js';
import { AccountRepository } from './account/account.repository.js';
import { ACCOUNT_SIGN_IN, type AccountSignIn } from './account/account-sign-in.js';
import { SecurityEventRepository } from './events/security-event.repository.js';
import { SecurityEvents } from './events/security-events.js';
import { AuthorizationMetrics } from './metrics/authorization.metrics.js';
import { GrantRepository } from './tokens/grant.repository.js';
import { TokenIssuer } from './tokens/token-issuer.service.js';
import { TokenController } from './tokens/token.controller.js';
import { TokenRequestProofs } from './tokens/token-request-proof.service.js';
import { UserinfoController } from './userinfo/userinfo.controller.js';
import { UserRepository } from './users/user.repository.js';

/**
 * The steps of the authorization server's own interaction: sign in with a password, consent, and the one-click
 * confirmation for public loopback clients.
 */
export const PASSWORD_INTERACTION: readonly InteractionStepType[] = [
  PasswordSignInStep,
  ConsentStep,
  LoopbackConfirmationStep,
];

export interface AuthorizationServerModuleOptions {
  readonly options: AuthorizationServerOptions;
  /**
   * The interaction's steps, in order, from `/authorize` to the code: {@link PASSWORD_INTERACTION} by default; the
   * proxy puts its consent-before-forwarding and upstream sign-in in place of the password.
   */
  readonly steps?: readonly InteractionStepType[];
  /** Extra providers and controllers of the app (its steps' dependencies, its callback route); exported. */
  readonly providers?: Provider[];
  readonly controllers?: Type<unknown>[];
  /**
   * The connected apps page (`/account`) and how people sign in on it: {@link PasswordAccountSignIn} on the
   * authorization server, the upstream at the proxy; without it there is no such page.
   */
  readonly account?: Type<AccountSignIn>;
  /**
   * Sections of the app's own on that page, below the apps, in this order (the proxy's connected upstream accounts):
   * each a provider, provided as `ACCOUNT_SECTIONS`, its forms posted to `/account/<name>/<action>`. Only with
   * `account`; without any, the page is the authorization server's own.
   */
  readonly accountSections?: Type<AccountSection>[];
  /**
   * Grants of the app's own at the token endpoint, after the built-in and the extension grants (the proxy's RFC 8693
   * token exchange); each is a provider, and its `grantType` is listed in the metadata.
   */
  readonly grants?: Type<TokenGrant>[];
}

/** The controllers under the issuer's path: every endpoint but the well-known discovery URLs. */
@Module({})
class OAuthEndpointsModule {}

/**
 * An OAuth 2.1 authorization server as NestJS modules: discovery, `/authorize` with login and consent, `/token`
 * with the authorization code and refresh token grants (and extension grants), JWKS and UserInfo. The app chooses
 * the interaction's steps. Endpoints live under the issuer's path; discovery at the well-known URLs built from
 * it (RFC 8414 3.1).
 */
@Global()
@Module({})
export class AuthorizationServerModule implements NestModule {
  constructor(@Inject(RoutePrologueHook) private readonly prologue: RoutePrologueHook) {}

  // Nest configures middleware once the HTTP adapter is there and before it registers any route: the moment to
  // watch the routes for their prologues (rate limits, back-channel checks).
  configure(): void {
    this.prologue.attach();
  }

  static forRoot(config: AuthorizationServerModuleOptions): DynamicModule {
    const { options } = config;
    const steps = config.steps ?? PASSWORD_INTERACTION;
    const appProviders = config.providers ?? [];
    const appGrants = config.grants ?? [];
    if (config.accountSections?.length && !config.account) {
      throw new Error('accountSections need the account page: set account too');
    }
    const accountSections = config.account ? (config.accountSections ?? []) : [];
    const issuerPath = new URL(options.issuer).pathname.replace(/^\/|\/$/g, '');
    const endpoints: DynamicModule = {
      module: OAuthEndpointsModule,
      controllers: [
        AuthorizeController,
        interactionController(steps),
        TokenController,
        IntrospectionController,
        RevocationController,
        ...(options.registration?.enabled ? [RegistrationController] : []),
        JwksController,
        UserinfoController,
        ...(issuerPath ? [PathAppendedDiscoveryController] : []),
        ...(config.account ? [AccountController] : []),
        ...(accountSections.length > 0 ? [AccountSectionsController] : []),
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
        AuthorizationMetrics,
        AccountRepository,
        SecurityEventRepository,
        SecurityEvents,
        { provide: ResourceRegistry, useValue: new ResourceRegistry(options.resources) },
        { provide: APP_FILTER, useClass: OAuthExceptionFilter },
        {
          provide: RATE_LIMIT_STORE,
          useFactory: () =>
            options.redisUrl ? new RedisRateLimitStore(options.redisUrl) : new MemoryRateLimitStore(),
        },
        RoutePrologueHook,
        ClientRepository,
        ClientIdMetadataDocumentSource,
        ClientResolver,
        { provide: CLIENT_SOURCE, useExisting: ClientResolver },
        ...steps,
        {
          provide: INTERACTION_STEPS,
          useFactory: (...instances: unknown[]) => instances,
          inject: [...steps],
        },
        RedirectTrust,
        SessionRepository,
        UsedJwtIds,
        ClientAssertionVerifier,
        RemoteKeySets,
        ClientAuthenticator,
        ConsentRepository,
        GrantRepository,
        HousekeepingRepository,
        HousekeepingService,
        InteractionService,
        IntrospectionService,
        IssuedTokens,
        MetadataService,
        PendingAuthorizations,
        PrivateUseSchemesNotice,
        RegistrationService,
        RevocationService,
        SessionService,
        SigningKeyRepository,
        SigningKeysService,
        TokenIssuer,
        TokenRequestProofs,
        UserRepository,
        ExtensionJwts,
        AuthorizationCodeGrant,
        RefreshTokenGrant,
        ...appGrants,
        {
          provide: TOKEN_GRANTS,
          // The built-in grants first, then one for each grant type an extension handles, then the app's.
          useFactory: (
            authorizationCode: TokenGrant,
            refreshToken: TokenGrant,
            tokens: TokenIssuer,
            resources: ResourceRegistry,
            usedJwtIds: UsedJwtIds,
            jwts: ExtensionJwts,
            clients: ClientSource,
            ...own: TokenGrant[]
          ): TokenGrant[] => [
            authorizationCode,
            refreshToken,
            ...extensionGrants(options, tokens, resources, usedJwtIds, jwts, clients),
            ...own,
          ],
          inject: [
            AuthorizationCodeGrant,
            RefreshTokenGrant,
            TokenIssuer,
            ResourceRegistry,
            UsedJwtIds,
            ExtensionJwts,
            CLIENT_SOURCE,
            ...appGrants,
          ],
        },
        ...(config.account ? [{ provide: ACCOUNT_SIGN_IN, useClass: config.account }] : []),
        ...accountSections,
        ...(accountSections.length > 0
          ? [
              {
                provide: ACCOUNT_SECTIONS,
                // Checked once, where they are composed: names, actions, no duplicates (a boot error otherwise).
                useFactory: (...sections: AccountSection[]): AccountSection[] => {
                  checkAccountSections(sections);
                  return sections;
                },
                inject: [...accountSections],
              },
            ]
          : []),
        ...appProviders,
      ],
      exports: [
        AUTHORIZATION_SERVER_OPTIONS,
        ...(config.account ? [ACCOUNT_SIGN_IN] : []),
        ...(accountSections.length > 0 ? [ACCOUNT_SECTIONS] : []),
        INTERACTION_STEPS,
        RedirectTrust,
        SessionRepository,
        ...appProviders.map((provider) => ('provide' in provider ? provider.provide : provider)),
        CLIENT_SOURCE,
        RATE_LIMIT_STORE,
        TOKEN_GRANTS,
        ClientAuthenticator,
        ClientRepository,
        ConsentRepository,
        GrantRepository,
        HousekeepingRepository,
        HousekeepingService,
        InteractionService,
        IntrospectionService,
        IssuedTokens,
        MetadataService,
        PendingAuthorizations,
        RegistrationService,
        RevocationService,
        ResourceRegistry,
        AccountRepository,
        SecurityEventRepository,
        SecurityEvents,
        SessionService,
        SigningKeyRepository,
        SigningKeysService,
        TokenIssuer,
        TokenRequestProofs,
        UserRepository,
      ],
    };
  }
}
