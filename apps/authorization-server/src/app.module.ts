import { Module } from '@nestjs/common';
import {
  AuthorizationServerModule,
  authorizationServerOptionsFromEnv,
  authorizationServerProductionRequirements,
  PASSWORD_INTERACTION,
  PasswordAccountSignIn,
  type AuthorizationServerHostOptions,
} from '@portcullis/authorization';
import { configureApp, type AppOverrides, type ConfiguredApp, type EnvSource } from '@portcullis/platform';
import { DevelopmentSetup } from './development-setup.js';
import { envSchema, seedsDemoUser } from './env.schema.js';

/** The authorization server's root module. */
@Module({})
export class AppModule {
  /**
   * `host`: what the embedding code (never the environment) sets, such as a test's metadata document fetcher. Its
   * `extensions` are composed beside those `EXTENSIONS` names (built-in names and modules), never instead of them.
   */
  static configure(
    env: EnvSource,
    overrides?: AppOverrides,
    { extensions, ...host }: Omit<AuthorizationServerHostOptions, 'loginHint'> = {},
  ): Promise<ConfiguredApp> {
    return configureApp({
      name: 'authorization-server',
      module: AppModule,
      schema: envSchema,
      env,
      overrides,
      extensions: (config) => ({ issuer: config.ISSUER, revision: config.SPEC_REVISION, add: extensions }),
      production: () => authorizationServerProductionRequirements(),
      imports: (config) => [
        AuthorizationServerModule.forRoot({
          options: authorizationServerOptionsFromEnv(config, {
            extensions: config.EXTENSIONS,
            ...host,
            ...(seedsDemoUser(config)
              ? { loginHint: `Development: sign in as demo / ${config.DEMO_PASSWORD}` }
              : {}),
          }),
          steps: PASSWORD_INTERACTION,
          // The connected apps page: its sign-in is this server's password form.
          account: PasswordAccountSignIn,
        }),
      ],
      providers: [DevelopmentSetup],
    });
  }
}
