export { listen, runMain, describeStartupError } from './bootstrap.js';
export type {
  AppOverrides,
  ConfiguredApp,
  MainOptions,
  PortcullisAppModule,
  RunningApp,
} from './bootstrap.js';
export {
  baseEnvSchema,
  checkBaseEnv,
  checkProductionEnv,
  parseEnv,
  databaseTargetFromEnv,
  ConfigError,
  type ProductionRequirement,
} from './config.js';
export type { BaseEnv, EnvSource } from './config.js';
export { HealthController } from './health.controller.js';
export { loggerParams, redactLogLine, redactUrl, requestIdFor } from './logging.js';
export type { LoggingOptions } from './logging.js';
export { PlatformModule } from './platform.module.js';
export type { PlatformModuleOptions } from './platform.module.js';
export { APP_CONFIG, configureApp } from './configure-app.js';
export type { ConfigureAppOptions } from './configure-app.js';
export {
  composeExtensionModules,
  composeExtensions,
  extensionsEnvField,
  type ExtensionCatalogue,
  type ExtensionModuleNames,
  type ExtensionModulesOptions,
  type ExtensionsConfig,
} from './extensions.env.js';
export {
  loadExtensionModule,
  resolveExtensionModule,
  type ExtensionModuleSource,
} from './extension-modules.js';
export {
  counterIn,
  createMetricsRegistry,
  httpRequestDuration,
  LATENCY_BUCKETS,
  METRICS_REGISTRY,
  metricIn,
} from './metrics/metrics.js';
export { MetricsController, METRICS_TOKEN } from './metrics/metrics.controller.js';
export {
  DEFAULT_SENTINEL_PORT,
  isRedisUrl,
  REDIS_URL_FORMAT,
  redisSentinelOptions,
  type RedisSentinelOptions,
  type SentinelAddress,
} from './redis-url.js';
export { appendRoutePreHandlers, type RoutePreHandler } from './route-hooks.js';
