import { Module, type DynamicModule } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import {
  DATABASE,
  DatabaseModule,
  type Database,
  type DatabaseSchema,
  type DatabaseTarget,
} from '@portcullis/persistence';
import { HealthController } from './health.controller.js';
import { loggerParams, type LoggingOptions } from './logging.js';
import { METRICS_TOKEN, MetricsController } from './metrics/metrics.controller.js';
import {
  createMetricsRegistry,
  databasePool,
  databaseQueryDuration,
  METRICS_REGISTRY,
} from './metrics/metrics.js';

export interface PlatformModuleOptions {
  logging: LoggingOptions;
  database: DatabaseTarget;
  /** Whose tables the database holds (`APP_SCHEMAS`): its migrations are applied at boot, and only those. */
  databaseSchema: DatabaseSchema;
  /** PostgreSQL connection pool size (default 10). */
  databasePoolSize?: number;
  /** How long a request waits for a pooled connection before it is answered 503 (default 5,000 ms). */
  databasePoolTimeoutMs?: number;
  /** DATABASE_POOL_MIN: connections opened at boot and kept. */
  databasePoolMin?: number;
  /** `/metrics`: served unless `enabled` is false, behind `token` when set. */
  metrics?: { enabled: boolean; token?: string };
}

/**
 * Logging, the database, the health probes and the metrics registry (`/metrics`): what every Portcullis app imports
 * first.
 */
@Module({})
export class PlatformModule {
  static forRoot(options: PlatformModuleOptions): DynamicModule {
    // One registry per app, made before the database opens so that its statements are timed from the first.
    const registry = createMetricsRegistry();
    const queries = databaseQueryDuration(registry);
    const metricsServed = options.metrics?.enabled !== false;
    return {
      module: PlatformModule,
      global: true,
      imports: [
        LoggerModule.forRoot(loggerParams(options.logging)),
        DatabaseModule.forRoot({
          target: options.database,
          schema: options.databaseSchema,
          ...(options.databasePoolSize ? { poolSize: options.databasePoolSize } : {}),
          ...(options.databasePoolTimeoutMs ? { poolTimeoutMs: options.databasePoolTimeoutMs } : {}),
          ...(options.databasePoolMin !== undefined ? { poolMin: options.databasePoolMin } : {}),
          onQuery: ({ operation, seconds, ok }) =>
            queries.observe({ operation, outcome: ok ? 'ok' : 'error' }, seconds),
        }),
      ],
      controllers: [HealthController, ...(metricsServed ? [MetricsController] : [])],
      providers: [
        { provide: METRICS_REGISTRY, useValue: registry },
        { provide: METRICS_TOKEN, useValue: options.metrics?.token },
        {
          provide: 'portcullis:database-pool-metrics',
          useFactory: (database: Database) => databasePool(registry, () => database.poolStats()),
          inject: [DATABASE],
        },
      ],
      exports: [DatabaseModule, METRICS_REGISTRY],
    };
  }
}
