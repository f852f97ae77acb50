import {
  Global,
  Inject,
  Logger,
  Module,
  type DynamicModule,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { openDatabase, type Database, type DatabaseTarget, type QueryObserver } from './database.js';
import type { DatabaseSchema } from './migrator/migrations.js';
import { PrismaClient } from './generated/prisma/client.js';
import { UnitOfWork } from './unit-of-work.js';

/** Injection token of the open {@link Database}. */
export const DATABASE = 'portcullis:database';

export interface DatabaseModuleOptions {
  target: DatabaseTarget;
  /** Whose tables the database holds: the app's (its migrations applied at boot, and only those). */
  schema: DatabaseSchema;
  poolSize?: number;
  /** How long a request waits for a pooled connection, or to begin a transaction, before it answers 503. */
  poolTimeoutMs?: number;
  /** Connections opened at boot and kept open while idle. */
  poolMin?: number;
  /** Told of every statement (metrics). */
  onQuery?: QueryObserver;
}

/**
 * Opens the database at boot (PostgreSQL or embedded PGlite), applies pending migrations before the app
 * listens, provides the {@link Database}, its `PrismaClient` and a {@link UnitOfWork} over it, and closes it when the app shuts down.
 */
@Global()
@Module({})
export class DatabaseModule implements OnApplicationShutdown {
  constructor(@Inject(DATABASE) private readonly database: Database) {}

  static forRoot(options: DatabaseModuleOptions): DynamicModule {
    return {
      module: DatabaseModule,
      providers: [
        {
          provide: DATABASE,
          useFactory: async (): Promise<Database> => {
            const logger = new Logger('Database');
            const database = await openDatabase(options.target, {
              schema: options.schema,
              ...(options.poolSize ? { poolSize: options.poolSize } : {}),
              ...(options.poolTimeoutMs ? { poolTimeoutMs: options.poolTimeoutMs } : {}),
              ...(options.poolMin !== undefined ? { poolMin: options.poolMin } : {}),
              ...(options.onQuery ? { onQuery: options.onQuery } : {}),
              logger: { info: (message) => logger.log(message), warn: (message) => logger.warn(message) },
            });
            logger.log(`using ${database.description}`);
            return database;
          },
        },
        { provide: PrismaClient, useFactory: (database: Database) => database.prisma, inject: [DATABASE] },
        {
          provide: UnitOfWork,
          useFactory: (database: Database) =>
            new UnitOfWork(
              database.prisma,
              options.poolTimeoutMs ? { maxWaitMs: options.poolTimeoutMs } : {},
              database.sql,
            ),
          inject: [DATABASE],
        },
      ],
      exports: [DATABASE, PrismaClient, UnitOfWork],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.database.close();
  }
}
