import { Module } from '@nestjs/common';
import { configureApp, type AppOverrides, type ConfiguredApp, type EnvSource } from '@portcullis/platform';
import { envSchema } from './env.schema.js';

/** The authorization server's root module. */
@Module({})
export class AppModule {
  static configure(env: EnvSource, overrides?: AppOverrides): ConfiguredApp {
    return configureApp({ name: 'authorization-server', module: AppModule, schema: envSchema, env, overrides });
  }
}
