import { randomBytes } from 'node:crypto';
import { Module } from '@nestjs/common';
import { AuthorizationServerModule, LocalPasswordAuthenticator } from '@portcullis/authorization';
import { ExtensionRegistry } from '@portcullis/extensions';
import { configureApp, type AppOverrides, type ConfiguredApp, type EnvSource } from '@portcullis/platform';
import { getRevision } from '@portcullis/revisions';
import { DevelopmentSetup } from './development-setup.js';
import { DEFAULT_RESOURCES, envSchema, seedsDemoUser, type Env } from './env.schema.js';

/** The authorization server's root module. */
@Module({})
export class AppModule {
  static configure(env: EnvSource, overrides?: AppOverrides): ConfiguredApp {
    return configureApp({
      name: 'authorization-server',
      module: AppModule,
      schema: envSchema,
      env,
      overrides,
      imports: (config) => [
        AuthorizationServerModule.forRoot({ options: authorizationOptions(config), authenticator: LocalPasswordAuthenticator }),
      ],
      providers: [DevelopmentSetup],
    });
  }
}

function authorizationOptions(config: Env) {
  const resources = config.RESOURCES ?? DEFAULT_RESOURCES;
  return {
    issuer: config.ISSUER,
    revision: config.SPEC_REVISION,
    resources: resources.map((resource) => ({
      uri: resource.uri,
      scopesSupported: resource.scopes_supported,
      ...(resource.name ? { name: resource.name } : {}),
      ...(resource.scope_hierarchy ? { scopeHierarchy: resource.scope_hierarchy } : {}),
    })),
    lifetimes: {
      accessToken: config.ACCESS_TOKEN_TTL,
      idToken: config.ID_TOKEN_TTL,
      authorizationCode: config.AUTHORIZATION_CODE_TTL,
      refreshTokenIdle: config.REFRESH_TOKEN_IDLE_TTL,
      refreshTokenAbsolute: config.REFRESH_TOKEN_ABSOLUTE_TTL,
      loginSession: config.SESSION_TTL,
      interaction: 600,
    },
    ...(config.KEY_ENCRYPTION_KEY ? { keyEncryptionKey: config.KEY_ENCRYPTION_KEY } : {}),
    // Without COOKIE_SECRET (development only; production requires it) sessions end when the process does.
    cookieSecret: config.COOKIE_SECRET ? Buffer.from(config.COOKIE_SECRET, 'utf8') : randomBytes(32),
    extensions: new ExtensionRegistry([]),
    rateLimits: {
      token: config.RATE_LIMIT_TOKEN,
      login: config.RATE_LIMIT_LOGIN,
      register: config.RATE_LIMIT_REGISTER,
    },
    registration: {
      enabled: config.DCR_ENABLED === 'true',
      ...(config.DCR_INITIAL_ACCESS_TOKEN ? { initialAccessToken: config.DCR_INITIAL_ACCESS_TOKEN } : {}),
    },
    signingKeys: { reloadInterval: config.SIGNING_KEY_RELOAD_INTERVAL },
    ...(config.REDIS_URL ? { redisUrl: config.REDIS_URL } : {}),
    ...(seedsDemoUser(config) ? { loginHint: `Development: sign in as demo / ${config.DEMO_PASSWORD}` } : {}),
    clientIdMetadataDocuments: {
      enabled:
        config.CIMD_ENABLED === undefined
          ? getRevision(config.SPEC_REVISION).supports('client-id-metadata-documents')
          : config.CIMD_ENABLED === 'true',
      allowLoopback: config.CIMD_ALLOW_LOOPBACK === 'true',
    },
  };
}
