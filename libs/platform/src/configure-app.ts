import type { DynamicModule, Provider, Type } from '@nestjs/common';
import type { z } from 'zod';
import type { AppOverrides, ConfiguredApp } from './bootstrap.js';
import { checkBaseEnv, databaseTargetFromEnv, parseEnv, type BaseEnv, type EnvSource } from './config.js';
import { PlatformModule } from './platform.module.js';

/** Injection token of an app's parsed configuration (its `env.schema.ts` output). */
export const APP_CONFIG = 'portcullis:app-config';

export interface ConfigureAppOptions<Schema extends z.ZodType<BaseEnv>> {
  /** The app's name, used in logs and for its default embedded data directory `.data/<name>`. */
  name: string;
  /** The root module class (`AppModule`). */
  module: Type<unknown>;
  schema: Schema;
  env: EnvSource;
  overrides?: AppOverrides;
  /** The app's feature modules, given its parsed configuration. */
  imports?: (config: z.infer<Schema>) => DynamicModule['imports'];
  providers?: Provider[];
}

/**
 * Parses an app's environment once and assembles its root module on top of the platform (logging, database,
 * health), providing the parsed configuration as {@link APP_CONFIG}.
 */
export function configureApp<Schema extends z.ZodType<BaseEnv>>(
  options: ConfigureAppOptions<Schema>,
): ConfiguredApp {
  const config = parseEnv(options.schema, options.env);
  checkBaseEnv(config);
  const pretty = config.NODE_ENV === 'development' && process.stdout.isTTY === true;
  return {
    module: {
      module: options.module,
      imports: [
        PlatformModule.forRoot({
          logging: {
            appName: options.name,
            level: config.LOG_LEVEL,
            pretty,
            ...(options.overrides?.logDestination ? { destination: options.overrides.logDestination } : {}),
          },
          database: options.overrides?.database ?? databaseTargetFromEnv(config, options.name),
          databasePoolSize: config.DATABASE_POOL_SIZE,
          databasePoolTimeoutMs: config.DATABASE_POOL_TIMEOUT_MS,
          metrics: {
            enabled: config.METRICS === 'on',
            ...(config.METRICS_TOKEN ? { token: config.METRICS_TOKEN } : {}),
          },
        }),
        ...(options.imports?.(config) ?? []),
      ],
      providers: [{ provide: APP_CONFIG, useValue: config }, ...(options.providers ?? [])],
      exports: [APP_CONFIG],
    },
    host: config.HOST,
    port: config.PORT,
    shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
  };
}
