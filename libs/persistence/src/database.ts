import { PGlite } from '@electric-sql/pglite';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { directSql, preparedStatementNames, type DirectSql } from './direct-sql.js';
import { acquireEmbeddedLock, type EmbeddedLock } from './embedded-lock.js';
import { PrismaClient } from './generated/prisma/client.js';
import {
  isAppSchema,
  otherAppsMigrations,
  readMigrations,
  type DatabaseSchema,
  type MigrationSet,
} from './migrator/migrations.js';
import { migrate, pendingMigrations, type MigrationLogger } from './migrator/migrator.js';
import { pgliteSession, pgSession, type SqlSession } from './migrator/sql-session.js';
import { redactDatabaseUrl } from './redact-url.js';
import { translateDatabaseError } from './unavailable.js';

/**
 * The client whose every statement that fails because the database cannot be reached rejects with a
 * `DatabaseUnavailableError` (503 `temporarily_unavailable` with `Retry-After`), whichever repository made it, so no
 * request answers 500 for an outage.
 */
function translatingErrors(prisma: PrismaClient, onQuery?: QueryObserver): PrismaClient {
  return prisma.$extends({
    name: 'portcullis-database-unavailable',
    query: {
      async $allOperations({ model, operation, args, query }) {
        const started = performance.now();
        let ok = false;
        try {
          const result = await query(args);
          ok = true;
          return result;
        } catch (error) {
          throw translateDatabaseError(error);
        } finally {
          onQuery?.({
            operation,
            ...(model ? { model } : {}),
            seconds: (performance.now() - started) / 1000,
            ok,
          });
        }
      },
    },
  }) as unknown as PrismaClient;
}

/** One statement made through the Prisma client: what it was, how long it took, and whether it succeeded. */
export interface QueryEvent {
  readonly model?: string;
  readonly operation: string;
  readonly seconds: number;
  readonly ok: boolean;
}

/** Told of every statement; for metrics. */
export type QueryObserver = (event: QueryEvent) => void;

/** The connection pool of a PostgreSQL database, now. */
export interface PoolStats {
  /** Connections open, busy or idle. */
  readonly total: number;
  readonly idle: number;
  /** Requests waiting for a connection. */
  readonly waiting: number;
  readonly max: number;
}

/** Where the data lives: a PostgreSQL server, an embedded PGlite directory, or an already open PGlite. */
export type DatabaseTarget = { url: string } | { pgliteDir: string } | { pglite: PGlite };

export interface OpenDatabaseOptions {
  logger?: MigrationLogger;
  /**
   * Whose tables the database holds (`APP_SCHEMAS`): an app's own migrations are applied and checked, and only those;
   * or only the sets named; default `all`, every shared set (a database several kinds of code share, as in tests).
   */
  schema?: DatabaseSchema | readonly MigrationSet[];
  /** Apply pending migrations before returning (default true). */
  migrate?: boolean;
  /** Connection pool size for PostgreSQL (default 10). */
  poolSize?: number;
  /**
   * How long a statement waits for a pooled PostgreSQL connection (opening one included) before it fails as
   * unavailable, which a request answers 503 with `Retry-After` (default 5,000 ms).
   */
  poolTimeoutMs?: number;
  /**
   * PostgreSQL connections opened before the database is returned and kept open while idle (default 4, at most
   * `poolSize`): what a burst can use at once without opening connections of its own, say when a balancer moves a
   * failed peer's load to this instance.
   */
  poolMin?: number;
  /** Told of every statement made through the Prisma client or {@link Database.sql} (its duration, whether it failed). */
  onQuery?: QueryObserver;
}

/** An open database: the Prisma client for the app, and single sessions for migrations and health. */
export interface Database {
  readonly kind: 'postgresql' | 'embedded';
  /** Where the data is, fit for logs (no password). */
  readonly description: string;
  readonly prisma: PrismaClient;
  /**
   * Statements straight on the driver adapter, over the client's pool (or embedded instance), outside any
   * transaction: for hot paths (see `UnitOfWork.query`, which takes part in a unit of work in progress).
   */
  readonly sql: DirectSql;
  /** Runs `fn` on one session (a dedicated connection), for advisory locks and transactions. */
  withSession<T>(fn: (session: SqlSession) => Promise<T>): Promise<T>;
  /** Resolves when the database answers a query; rejects otherwise. */
  ping(): Promise<void>;
  /** Names of shipped migrations of its schema not applied to this database. */
  pendingMigrations(): Promise<string[]>;
  /** The PostgreSQL connection pool's state; undefined for the embedded database (one session, no pool). */
  poolStats(): PoolStats | undefined;
  close(): Promise<void>;
}

/** The database could not be reached; the message names the redacted URL and the cause. */
export class DatabaseConnectionError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DatabaseConnectionError';
  }
}

/** Opens (and by default migrates) the database the target names. */
export async function openDatabase(
  target: DatabaseTarget,
  options: OpenDatabaseOptions = {},
): Promise<Database> {
  const database =
    'url' in target ? await openPostgres(target.url, options) : await openEmbedded(target, options);
  if (options.migrate !== false) {
    try {
      const { schema } = options;
      const migrations = await readMigrations(schema);
      const otherApps =
        typeof schema === 'string' && isAppSchema(schema) ? await otherAppsMigrations(schema) : undefined;
      await database.withSession((session) =>
        migrate(session, {
          migrations,
          ...(otherApps ? { otherApps } : {}),
          ...(options.logger ? { logger: options.logger } : {}),
        }),
      );
    } catch (error) {
      await database.close();
      throw error;
    }
  }
  return database;
}

/**
 * The migrations this build ships for a schema, read from disk once per process: a readiness probe compares them with
 * the database's history every few seconds, and the files change only with a new build.
 */
const shippedBySchema = new Map<string, ReturnType<typeof readMigrations>>();
function shipped(schema: OpenDatabaseOptions['schema']): ReturnType<typeof readMigrations> {
  const key = String(schema ?? '');
  let migrations = shippedBySchema.get(key);
  if (!migrations) {
    migrations = readMigrations(schema);
    // A failed read is not kept: the next probe reads again.
    migrations.catch(() => shippedBySchema.delete(key));
    shippedBySchema.set(key, migrations);
  }
  return migrations;
}

/** How many pooled connections are opened at boot and kept, unless told otherwise. */
const POOL_MIN = 4;

/** Opens `count` connections of `pool` at once and returns them to it idle; a failure leaves the pool to retry later. */
async function warm(pool: pg.Pool, count: number): Promise<void> {
  const clients = await Promise.all(
    Array.from({ length: count }, () => pool.connect().catch(() => undefined)),
  );
  for (const client of clients) client?.release();
}

async function openPostgres(url: string, options: OpenDatabaseOptions): Promise<Database> {
  const description = redactDatabaseUrl(url);
  const connect = async (): Promise<pg.Client> => {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
    try {
      await client.connect();
      return client;
    } catch (error) {
      await client.end().catch(() => undefined);
      const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      throw new DatabaseConnectionError(`cannot connect to ${description} (${reason})`, { cause: error });
    }
  };
  // Connect once up front so a wrong URL fails the boot with a clear message, not on the first request.
  await (await connect()).end();
  const max = options.poolSize ?? 10;
  const min = Math.min(max, options.poolMin ?? POOL_MIN);
  const pool = new pg.Pool({
    connectionString: url,
    max,
    // Idle connections beyond these are closed after idleTimeoutMillis; these stay.
    min,
    // A request waits this long for a connection (the pool busy, or the database away), then answers 503.
    connectionTimeoutMillis: options.poolTimeoutMs ?? 5_000,
    // Idle connections are kept a while, so that a burst after a quiet spell does not pay for new ones.
    idleTimeoutMillis: 30_000,
    keepAlive: true,
  });
  // A pooled connection that breaks while idle (the server restarted) is dropped by the pool; without a listener the
  // error would end the process.
  pool.on('error', () => undefined);
  // Warm: the kept connections are opened before the app reports ready, so that the first requests a balancer sends
  // a new instance (a rolling restart) do not each wait for a connection of their own on a busy machine.
  await warm(pool, min);
  const prisma = translatingErrors(new PrismaClient({ adapter: new PrismaPg(pool) }), options.onQuery);
  // A second adapter over the same pool for the hot statements, each prepared once per connection.
  const direct = await new PrismaPg(pool, { statementNameGenerator: preparedStatementNames() }).connect();
  const withSession = async <T>(fn: (session: SqlSession) => Promise<T>): Promise<T> => {
    const client = await connect();
    try {
      return await fn(pgSession(client));
    } finally {
      await client.end().catch(() => undefined);
    }
  };
  return {
    kind: 'postgresql',
    description,
    prisma,
    sql: directSql(direct, options.onQuery),
    withSession,
    ping: async () => {
      await prisma.$queryRawUnsafe('SELECT 1');
    },
    pendingMigrations: async () => pendingMigrations(prismaSession(prisma), await shipped(options.schema)),
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max }),
    close: async () => {
      await prisma.$disconnect();
      await direct.dispose();
      await pool.end().catch(() => undefined);
    },
  };
}

async function openEmbedded(
  target: { pgliteDir: string } | { pglite: PGlite },
  options: OpenDatabaseOptions,
): Promise<Database> {
  const { logger, onQuery } = options;
  let lock: EmbeddedLock | undefined;
  let pglite: PGlite;
  let description: string;
  if ('pglite' in target) {
    pglite = target.pglite;
    description = 'embedded PGlite (in process)';
  } else {
    lock = await acquireEmbeddedLock(target.pgliteDir);
    if (lock.recoveredFrom !== null) {
      logger?.warn(
        `embedded database at ${target.pgliteDir} was not closed cleanly (process ${lock.recoveredFrom}); recovering`,
      );
    }
    try {
      pglite = await PGlite.create(target.pgliteDir);
    } catch (error) {
      await lock.release();
      throw error;
    }
    description = `embedded PGlite at ${target.pgliteDir}`;
  }
  const prisma = translatingErrors(new PrismaClient({ adapter: new PrismaPGlite(pglite) }), onQuery);
  // PGlite runs one statement at a time and a transaction alone (its own locks), whoever's adapter sends them.
  const direct = await new PrismaPGlite(pglite).connect();
  const ownsInstance = !('pglite' in target);
  return {
    kind: 'embedded',
    description,
    prisma,
    sql: directSql(direct, onQuery),
    // PGlite is a single session already; callers serialise through it.
    withSession: (fn) => fn(pgliteSession(pglite)),
    ping: async () => {
      await pglite.query('SELECT 1');
    },
    pendingMigrations: async () => pendingMigrations(pgliteSession(pglite), await shipped(options.schema)),
    poolStats: () => undefined,
    close: async () => {
      await prisma.$disconnect();
      await direct.dispose();
      if (ownsInstance) await pglite.close();
      await lock?.release();
    },
  };
}

/** A session over Prisma's pool, for single statements (health checks); not for locks or transactions. */
function prismaSession(prisma: PrismaClient): SqlSession {
  return {
    query: (text, params = []) => prisma.$queryRawUnsafe(text, ...params),
    exec: async (script) => {
      await prisma.$executeRawUnsafe(script);
    },
  };
}
