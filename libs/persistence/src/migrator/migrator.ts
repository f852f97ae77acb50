import { randomUUID } from 'node:crypto';
import { readMigrations, type MigrationFile } from './migrations.js';
import type { SqlSession } from './sql-session.js';

/**
 * The advisory lock key Prisma Migrate takes on PostgreSQL. Using the same key makes our migrator and
 * `prisma migrate deploy` exclude each other as well as replicas of our apps.
 */
export const PRISMA_MIGRATE_LOCK_KEY = 72707369;

/** Prisma Migrate's bookkeeping table, column for column, so both tools agree on what is applied. */
const CREATE_MIGRATIONS_TABLE = `
CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

export type MigrationErrorCode =
  'another_app' | 'checksum_mismatch' | 'failed_migration' | 'lock_timeout' | 'migration_failed';

/** Stops the boot: the database and the shipped migrations disagree, or a migration cannot be applied. */
export class MigrationError extends Error {
  constructor(
    readonly code: MigrationErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'MigrationError';
  }
}

export interface MigrationLogger {
  info(message: string): void;
  warn(message: string): void;
}

export interface MigrateOptions {
  /** The migrations to apply; defaults to the ones shipped with this package. */
  migrations?: MigrationFile[];
  logger?: MigrationLogger;
  /** How long to wait for another process holding the migration lock (default 60 s). */
  lockTimeoutMs?: number;
  /**
   * Migrations that make a database another app's, with that app's name: one of them applied stops the migration
   * before anything is applied (see `otherAppsMigrations`).
   */
  otherApps?: ReadonlyMap<string, string>;
}

export interface MigrateResult {
  applied: string[];
  alreadyApplied: string[];
}

interface AppliedRow extends Record<string, unknown> {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
  rolled_back_at: Date | null;
}

const silent: MigrationLogger = { info: () => undefined, warn: () => undefined };

/**
 * Applies pending migrations in order, each in its own transaction, under Prisma's advisory lock so that
 * replicas booting together apply each migration exactly once. Refuses to continue when an applied
 * migration's file changed or an earlier migration failed half-way, as `prisma migrate deploy` does.
 */
export async function migrate(session: SqlSession, options: MigrateOptions = {}): Promise<MigrateResult> {
  const logger = options.logger ?? silent;
  const migrations = options.migrations ?? (await readMigrations());
  await acquireLock(session, options.lockTimeoutMs ?? 60_000);
  try {
    await session.exec(CREATE_MIGRATIONS_TABLE);
    const rows = await session.query<AppliedRow>(
      `SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations"
        WHERE rolled_back_at IS NULL ORDER BY started_at`,
    );
    const applied = new Map<string, AppliedRow>();
    for (const row of rows) {
      if (row.finished_at === null) {
        throw new MigrationError(
          'failed_migration',
          `migration ${row.migration_name} started but never finished; resolve it (prisma migrate resolve) before booting`,
        );
      }
      applied.set(row.migration_name, row);
    }
    for (const name of applied.keys()) {
      const owner = options.otherApps?.get(name);
      if (owner !== undefined) {
        throw new MigrationError(
          'another_app',
          `this database is the ${owner}'s (it applied ${name}): each app needs a database of its own (DATABASE_URL)`,
        );
      }
    }
    const known = new Set(migrations.map((migration) => migration.name));
    for (const name of applied.keys()) {
      if (!known.has(name)) logger.warn(`database has migration ${name}, which this build does not ship`);
    }

    const result: MigrateResult = { applied: [], alreadyApplied: [] };
    for (const migration of migrations) {
      const row = applied.get(migration.name);
      if (row) {
        if (row.checksum !== migration.checksum) {
          throw new MigrationError(
            'checksum_mismatch',
            `migration ${migration.name} was changed after it was applied (checksum ${row.checksum.slice(0, 12)}… in the database, ${migration.checksum.slice(0, 12)}… on disk); restore the file and add a new migration instead`,
          );
        }
        result.alreadyApplied.push(migration.name);
        continue;
      }
      await applyOne(session, migration);
      logger.info(`applied migration ${migration.name}`);
      result.applied.push(migration.name);
    }
    return result;
  } finally {
    await session.query('SELECT pg_advisory_unlock($1)', [PRISMA_MIGRATE_LOCK_KEY]);
  }
}

/** Names of shipped migrations the database has not applied (empty when the schema is current). */
export async function pendingMigrations(
  session: SqlSession,
  migrations?: MigrationFile[],
): Promise<string[]> {
  const shipped = migrations ?? (await readMigrations());
  const table = await session.query<{ present: boolean }>(
    `SELECT to_regclass('"_prisma_migrations"') IS NOT NULL AS present`,
  );
  if (!table[0]?.present) return shipped.map((migration) => migration.name);
  const rows = await session.query<{ migration_name: string; checksum: string }>(
    `SELECT migration_name, checksum FROM "_prisma_migrations"
      WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
  );
  const applied = new Set(rows.map((row) => `${row.migration_name}:${row.checksum}`));
  return shipped
    .filter((migration) => !applied.has(`${migration.name}:${migration.checksum}`))
    .map((migration) => migration.name);
}

async function applyOne(session: SqlSession, migration: MigrationFile): Promise<void> {
  const id = randomUUID();
  await session.exec('BEGIN');
  try {
    await session.query(
      `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, applied_steps_count)
       VALUES ($1, $2, $3, now(), 0)`,
      [id, migration.checksum, migration.name],
    );
    await session.exec(migration.script);
    await session.query(
      `UPDATE "_prisma_migrations" SET finished_at = now(), applied_steps_count = 1 WHERE id = $1`,
      [id],
    );
    await session.exec('COMMIT');
  } catch (error) {
    await session.exec('ROLLBACK').catch(() => undefined);
    const reason = error instanceof Error ? error.message : String(error);
    throw new MigrationError('migration_failed', `migration ${migration.name} failed: ${reason}`, {
      cause: error,
    });
  }
}

async function acquireLock(session: SqlSession, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await session.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [
      PRISMA_MIGRATE_LOCK_KEY,
    ]);
    if (row?.locked) return;
    if (Date.now() >= deadline) {
      throw new MigrationError(
        'lock_timeout',
        `another process held the migration lock for more than ${Math.round(timeoutMs / 1000)} s`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
