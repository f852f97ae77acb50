import type { DynamicModule, Provider, Type } from '@nestjs/common';
import { isAppSchema } from '@portcullis/persistence';
import type { z } from 'zod';
import type { AppOverrides, ConfiguredApp } from './bootstrap.js';
import {
  checkBaseEnv,
  checkProductionEnv,
  databaseTargetFromEnv,
  parseEnv,
  type BaseEnv,
  type EnvSource,
  type ProductionRequirement,
} from './config.js';
import {
  composeExtensionModules,
  type ExtensionModulesOptions,
  type ExtensionsConfig,
} from './extensions.env.js';
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
  /**
   * For an app whose schema ends with `composeExtensions`: the issuer and revision the `EXTENSIONS` modules'
   * factories get, and what the entry point adds to the configured extensions.
   */
  extensions?: (config: z.infer<Schema> & ExtensionsConfig) => ExtensionModulesOptions;
  /** The app's feature modules, given its parsed configuration (its `EXTENSIONS` with every module composed). */
  imports?: (config: z.infer<Schema>) => DynamicModule['imports'];
  providers?: Provider[];
  /**
   * The variables this app needs set in production beyond `DATABASE_URL` (whose defaults only suit development),
   * given its parsed configuration (see `checkProductionEnv`).
   */
  production?: (config: z.infer<Schema>) => readonly ProductionRequirement[];
}

/**
 * Parses an app's environment once, loads the extension modules its `EXTENSIONS` names, and assembles its root
 * module on top of the platform (logging, database, health), providing the parsed configuration as
 * {@link APP_CONFIG}.
 *
 * @throws ConfigError (the promise rejects with it) naming the variable, for a bad value or a module that cannot be
 *   composed.
 */
export async function configureApp<Schema extends z.ZodType<BaseEnv>>(
  options: ConfigureAppOptions<Schema>,
): Promise<ConfiguredApp> {
  const parsed = parseEnv(options.schema, options.env);
  checkBaseEnv(parsed);
  checkProductionEnv(options.env, parsed, options.production?.(parsed) ?? []);
  const config = options.extensions
    ? await withModules(parsed as z.infer<Schema> & ExtensionsConfig, options.env, options.extensions)
    : parsed;
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
          // An app of APP_SCHEMAS holds its own tables only; any other (a bench's) every table.
          databaseSchema: isAppSchema(options.name) ? options.name : 'all',
          databasePoolSize: config.DATABASE_POOL_SIZE,
          databasePoolTimeoutMs: config.DATABASE_POOL_TIMEOUT_MS,
          ...(config.DATABASE_POOL_MIN !== undefined ? { databasePoolMin: config.DATABASE_POOL_MIN } : {}),
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
    ...(config.TRUST_PROXY ? { trustProxy: config.TRUST_PROXY } : {}),
  };
}

function withModules<Config extends ExtensionsConfig>(
  config: Config,
  env: EnvSource,
  options: (config: Config) => ExtensionModulesOptions,
): Promise<Config> {
  return composeExtensionModules(config, env, options(config));
}
