import { hkdfSync } from 'node:crypto';
import { Global, Module, type DynamicModule } from '@nestjs/common';
import {
  AuthorizationServerModule,
  authorizationServerOptionsFromEnv,
  type AuthorizationServerOptions,
  type MetadataDocumentFetchOverrides,
} from '@portcullis/authorization';
import { configureApp, type AppOverrides, type ConfiguredApp, type EnvSource } from '@portcullis/platform';
import { ClientTrust } from './consent/client-trust.js';
import { ConsentCookies } from './consent/consent-cookie.js';
import { UpstreamConsentController } from './consent/upstream-consent.controller.js';
import { DEVELOPMENT_UPSTREAM, envSchema, type Env } from './env.schema.js';
import { UpstreamHousekeeping } from './housekeeping/upstream-housekeeping.service.js';
import { PROXY_OPTIONS, type ProxyOptions } from './proxy.options.js';
import { UpstreamCallbackController } from './upstream/callback/upstream-callback.controller.js';
import { SignInCookies } from './upstream/sign-in-cookie.js';
import { UpstreamClient } from './upstream/upstream-client.service.js';
import { UpstreamIdentities } from './upstream/upstream-identity.repository.js';
import { UpstreamRedirect } from './upstream/upstream-redirect.service.js';
import { UpstreamStates } from './upstream/upstream-state.repository.js';
import { UpstreamTokens } from './upstream/upstream-token.repository.js';
import { UpstreamAuthenticator } from './upstream/upstream.authenticator.js';

/** A dynamically registered client is "recently registered" on the consent page for this long. */
const RECENT_CLIENT_AGE_SECONDS = 24 * 3600;

/** What a host (never the environment) may set: the client ID metadata document fetcher's resolver and CAs. */
export interface ProxyHostOptions {
  readonly metadataDocumentFetch?: MetadataDocumentFetchOverrides;
}

const PROXY_PROVIDERS = [
  ClientTrust,
  ConsentCookies,
  SignInCookies,
  UpstreamClient,
  UpstreamHousekeeping,
  UpstreamIdentities,
  UpstreamRedirect,
  UpstreamStates,
  UpstreamTokens,
];

/**
 * The proxy's own services, global so that the authorization server's modules (which build the authenticator and
 * host the consent and callback controllers) can inject them.
 */
@Global()
@Module({})
class ProxyModule {
  static forRoot(options: ProxyOptions): DynamicModule {
    return {
      module: ProxyModule,
      providers: [{ provide: PROXY_OPTIONS, useValue: options }, ...PROXY_PROVIDERS],
      exports: [PROXY_OPTIONS, ...PROXY_PROVIDERS],
    };
  }
}

/**
 * The proxy's root module: the authorization server of `libs/authorization` (metadata, `/authorize`, `/token`,
 * registration, client ID metadata documents, JWKS, ...) whose `Authenticator` signs people in at an upstream
 * authorization server, behind the proxy's own consent page, with the upstream callback beside it.
 */
@Module({})
export class AppModule {
  static configure(env: EnvSource, overrides?: AppOverrides, host: ProxyHostOptions = {}): ConfiguredApp {
    return configureApp({
      name: 'proxy',
      module: AppModule,
      schema: envSchema,
      env,
      overrides,
      imports: (config) => {
        const options = authorizationOptions(config, host);
        return [
          AuthorizationServerModule.forRoot({
            options,
            authenticator: UpstreamAuthenticator,
            controllers: [UpstreamConsentController, UpstreamCallbackController],
          }),
          ProxyModule.forRoot(proxyOptions(config, options)),
        ];
      },
    });
  }
}

function authorizationOptions(config: Env, host: ProxyHostOptions): AuthorizationServerOptions {
  return authorizationServerOptionsFromEnv(config, {
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
    },
    // Upstream tokens are always sealed: under KEY_ENCRYPTION_KEY (required in production), else under a key
    // derived from the cookie secret, so in development they last as long as the sign-ins do.
    sealingKey:
      options.keyEncryptionKey ??
      new Uint8Array(
        hkdfSync('sha256', options.cookieSecret, new Uint8Array(0), 'portcullis-proxy upstream sealing', 32),
      ),
    consentCookieTtl: config.CONSENT_COOKIE_TTL,
    recentClientAge: RECENT_CLIENT_AGE_SECONDS,
  };
}

/** The configured upstream client; without `UPSTREAM_ISSUER`, the local authorization server's development one. */
function upstreamClient(config: Env): { issuer: string; clientId: string; clientSecret?: string } {
  if (config.UPSTREAM_ISSUER) {
    return {
      issuer: config.UPSTREAM_ISSUER,
      clientId: config.UPSTREAM_CLIENT_ID ?? DEVELOPMENT_UPSTREAM.clientId,
      ...(config.UPSTREAM_CLIENT_SECRET ? { clientSecret: config.UPSTREAM_CLIENT_SECRET } : {}),
    };
  }
  return {
    issuer: DEVELOPMENT_UPSTREAM.issuer,
    clientId: config.UPSTREAM_CLIENT_ID ?? DEVELOPMENT_UPSTREAM.clientId,
    clientSecret: config.UPSTREAM_CLIENT_SECRET ?? DEVELOPMENT_UPSTREAM.clientSecret,
  };
}
