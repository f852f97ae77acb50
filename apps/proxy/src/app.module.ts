import { hkdfSync } from 'node:crypto';
import { Module } from '@nestjs/common';
import {
  AuthorizationServerModule,
  authorizationServerOptionsFromEnv,
  authorizationServerProductionRequirements,
  ConsentStep,
  LoopbackConfirmationStep,
  type AuthorizationServerOptions,
  type MetadataDocumentFetchOverrides,
} from '@portcullis/authorization';
import type { ExtensionRegistry } from '@portcullis/extensions';
import { configureApp, type AppOverrides, type ConfiguredApp, type EnvSource } from '@portcullis/platform';
import { ConnectedAccountsSection } from './account/connected-accounts.section.js';
import { UpstreamAccountSignIn } from './account/upstream-account-sign-in.js';
import { connectionCallbackPath, ConnectTickets } from './connections/connect-ticket.service.js';
import { ConnectController } from './connections/connect.controller.js';
import { UpstreamConnections } from './connections/upstream-connections.service.js';
import { ConfirmClientStep } from './consent/confirm-client.step.js';
import { ConsentCookies } from './consent/consent-cookie.js';
import { DEVELOPMENT_UPSTREAM, envSchema, type Env } from './env.schema.js';
import { UpstreamHousekeeping } from './housekeeping/upstream-housekeeping.service.js';
import { PROXY_OPTIONS, type ProxyOptions, type UpstreamOptions } from './proxy.options.js';
import { upstreamProviderOptions } from './upstream/providers/upstream-provider.env.js';
import { UpstreamCallbackController } from './upstream/callback/upstream-callback.controller.js';
import { SignInCookies } from './upstream/sign-in-cookie.js';
import { UpstreamClient } from './upstream/upstream-client.service.js';
import { UpstreamIdentities } from './upstream/upstream-identity.repository.js';
import { UpstreamRedirect } from './upstream/upstream-redirect.service.js';
import { UpstreamStates } from './upstream/upstream-state.repository.js';
import { UpstreamTokens } from './upstream/upstream-token.repository.js';
import { UpstreamSignInStep } from './upstream/upstream-sign-in.step.js';
import { UpstreamVault } from './upstream/upstream-vault.service.js';
import { TokenExchangeGrant } from './upstream/exchange/token-exchange.grant.js';

/**
 * What a host (never the environment) may set: the client ID metadata document fetcher's resolver and CAs, and
 * extensions composed beside those `EXTENSIONS` names (never instead of them).
 */
export interface ProxyHostOptions {
  readonly metadataDocumentFetch?: MetadataDocumentFetchOverrides;
  readonly extensions?: ExtensionRegistry;
}

/** The proxy's services, provided (and exported) by the authorization server module it is built from. */
const PROXY_PROVIDERS = [
  ConnectTickets,
  ConsentCookies,
  SignInCookies,
  {
    provide: UpstreamClient,
    useFactory: (options: ProxyOptions) => new UpstreamClient(options.upstream),
    inject: [PROXY_OPTIONS],
  },
  UpstreamConnections,
  UpstreamHousekeeping,
  UpstreamIdentities,
  UpstreamRedirect,
  UpstreamStates,
  UpstreamTokens,
  UpstreamVault,
];

/**
 * The proxy's root module: the authorization server of `libs/authorization` (metadata, `/authorize`, `/token`,
 * registration, client ID metadata documents, JWKS, ...) whose interaction asks the proxy's consent before going
 * upstream and signs people in at the upstream authorization server, with the upstream callback beside it.
 */
@Module({})
export class AppModule {
  static configure(
    env: EnvSource,
    overrides?: AppOverrides,
    host: ProxyHostOptions = {},
  ): Promise<ConfiguredApp> {
    return configureApp({
      name: 'proxy',
      module: AppModule,
      schema: envSchema,
      env,
      overrides,
      extensions: (config) => ({
        issuer: config.ISSUER,
        revision: config.SPEC_REVISION,
        add: host.extensions,
      }),
      // The upstream (UPSTREAM_ISSUER, UPSTREAM_CLIENT_ID) is required in production by the schema itself.
      production: () => authorizationServerProductionRequirements(),
      imports: (config) => {
        const options = authorizationOptions(config, host);
        return [
          AuthorizationServerModule.forRoot({
            options,
            steps: [ConfirmClientStep, UpstreamSignInStep, ConsentStep, LoopbackConfirmationStep],
            providers: [
              { provide: PROXY_OPTIONS, useValue: proxyOptions(config, options) },
              ...PROXY_PROVIDERS,
            ],
            // The upstream callback, and the link that connects a user's connection again.
            controllers: [UpstreamCallbackController, ConnectController],
            // RFC 8693: resource servers registered for it exchange a user's token for the user's upstream token.
            grants: [TokenExchangeGrant],
            // The connected apps page: people sign in to it upstream, and see (and disconnect) their connections.
            account: UpstreamAccountSignIn,
            accountSections: [ConnectedAccountsSection],
          }),
        ];
      },
    });
  }
}

function authorizationOptions(config: Env, host: ProxyHostOptions): AuthorizationServerOptions {
  return authorizationServerOptionsFromEnv(config, {
    extensions: config.EXTENSIONS,
    ...(host.metadataDocumentFetch ? { metadataDocumentFetch: host.metadataDocumentFetch } : {}),
  });
}

function proxyOptions(config: Env, options: AuthorizationServerOptions): ProxyOptions {
  return {
    upstream: {
      ...upstreamClient(config),
      scopes: config.UPSTREAM_SCOPES,
      timeoutMs: config.UPSTREAM_TIMEOUT_MS,
      redirectUri: `${config.ISSUER}/upstream/callback`,
      ...(config.UPSTREAM_ALLOWED ? { allowed: config.UPSTREAM_ALLOWED } : {}),
    },
    connections: new Map(
      [...(config.CONNECTIONS ?? new Map())].map(([name, connection]) => [
        name,
        {
          ...connection,
          timeoutMs: config.UPSTREAM_TIMEOUT_MS,
          redirectUri: `${config.ISSUER}/${connectionCallbackPath(name)}`,
        },
      ]),
    ),
    // Upstream tokens are always sealed: under KEY_ENCRYPTION_KEY (required in production), else under a key
    // derived from the cookie secret, so in development they last as long as the sign-ins do.
    sealingKey:
      options.keyEncryptionKey ??
      new Uint8Array(
        hkdfSync('sha256', options.cookieSecret, new Uint8Array(0), 'portcullis-proxy upstream sealing', 32),
      ),
    consentCookieTtl: config.CONSENT_COOKIE_TTL,
  };
}

/**
 * The configured provider and client; for `oidc` without `UPSTREAM_ISSUER`, the local authorization server's
 * development one.
 */
function upstreamClient(
  config: Env,
): Pick<UpstreamOptions, 'provider' | 'issuer' | 'clientId' | 'clientSecret'> {
  const { provider, issuer } = upstreamProviderOptions(config);
  if (issuer) {
    return {
      provider,
      issuer,
      clientId: config.UPSTREAM_CLIENT_ID ?? DEVELOPMENT_UPSTREAM.clientId,
      ...(config.UPSTREAM_CLIENT_SECRET ? { clientSecret: config.UPSTREAM_CLIENT_SECRET } : {}),
    };
  }
  return {
    provider,
    issuer: DEVELOPMENT_UPSTREAM.issuer,
    clientId: config.UPSTREAM_CLIENT_ID ?? DEVELOPMENT_UPSTREAM.clientId,
    clientSecret: config.UPSTREAM_CLIENT_SECRET ?? DEVELOPMENT_UPSTREAM.clientSecret,
  };
}
