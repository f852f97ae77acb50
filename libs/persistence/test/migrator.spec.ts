import { afterEach, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import {
  migrate,
  migrationChecksum,
  pgSession,
  readMigrations,
  type MigrationFile,
  type SqlSession,
} from '@portcullis/persistence';
import { postgresServerAvailable, startDatabase, type TestDatabase } from '@portcullis/testing';

const started: TestDatabase[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((db) => db.stop()));
});

async function emptyDatabase(): Promise<TestDatabase> {
  const db = await startDatabase({ migrate: false });
  started.push(db);
  return db;
}

function migration(name: string, script: string): MigrationFile {
  return { name, script, checksum: migrationChecksum(script) };
}

async function appliedRows(session: SqlSession) {
  return session.query<{
    migration_name: string;
    checksum: string;
    finished_at: Date | null;
    applied_steps_count: number;
  }>(
    `SELECT migration_name, checksum, finished_at, applied_steps_count FROM "_prisma_migrations" ORDER BY migration_name`,
  );
}

async function tableExists(session: SqlSession, table: string): Promise<boolean> {
  const [row] = await session.query<{ present: boolean }>(`SELECT to_regclass($1) IS NOT NULL AS present`, [
    table,
  ]);
  return row?.present === true;
}

describe('the migrator', () => {
  it('applies the shipped migrations in order and records them as Prisma Migrate does', async () => {
    const db = await emptyDatabase();
    const shipped = await readMigrations();
    expect(shipped.length).toBeGreaterThan(0);
    await db.database.withSession(async (session) => {
      const result = await migrate(session);
      expect(result.applied).toEqual(shipped.map((m) => m.name));
      const rows = await appliedRows(session);
      expect(rows.map((row) => [row.migration_name, row.checksum, row.applied_steps_count])).toEqual(
        shipped.map((m) => [m.name, m.checksum, 1]),
      );
      expect(rows.every((row) => row.finished_at instanceof Date)).toBe(true);
      expect(await tableExists(session, 'users')).toBe(true);
    });
  });

  it('applies nothing the second time', async () => {
    const db = await emptyDatabase();
    await db.database.withSession(async (session) => {
      await migrate(session);
      const again = await migrate(session);
      expect(again.applied).toEqual([]);
      expect(again.alreadyApplied.length).toBeGreaterThan(0);
      expect(await appliedRows(session)).toHaveLength(again.alreadyApplied.length);
    });
  });

  it('stores the checksum Prisma computes: SHA-256 of the script bytes in lowercase hex', () => {
    expect(migrationChecksum('SELECT 1;\n')).toBe(
      'b4e0497804e46e0a0b0b8c31975b062152d551bac49c3c2e80932567b4085dcd',
    );
    expect(migrationChecksum(Buffer.from('SELECT 1;\n'))).toBe(
      'b4e0497804e46e0a0b0b8c31975b062152d551bac49c3c2e80932567b4085dcd',
    );
  });

  it('stops with checksum_mismatch when an applied migration was changed afterwards', async () => {
    const db = await emptyDatabase();
    await db.database.withSession(async (session) => {
      await migrate(session, {
        migrations: [migration('20260101000000_a', 'CREATE TABLE t_a (x integer);')],
      });
      const changed = [migration('20260101000000_a', 'CREATE TABLE t_a (x integer, y integer);')];
      await expect(migrate(session, { migrations: changed })).rejects.toMatchObject({
        name: 'MigrationError',
        code: 'checksum_mismatch',
        message: expect.stringContaining('20260101000000_a was changed after it was applied'),
      });
      const columns = await session.query(
        `SELECT column_name FROM information_schema.columns WHERE table_name = 't_a' ORDER BY column_name`,
      );
      expect(columns).toEqual([{ column_name: 'x' }]);
    });
  });

  it('rolls a failing migration back whole, records nothing, and applies nothing after it', async () => {
    const db = await emptyDatabase();
    await db.database.withSession(async (session) => {
      const migrations = [
        migration('20260101000000_ok', 'CREATE TABLE t_ok (x integer);'),
        migration('20260102000000_bad', 'CREATE TABLE t_half (x integer);\nSELECT no_such_function();'),
        migration('20260103000000_after', 'CREATE TABLE t_after (x integer);'),
      ];
      await expect(migrate(session, { migrations })).rejects.toMatchObject({ code: 'migration_failed' });
      expect((await appliedRows(session)).map((row) => row.migration_name)).toEqual(['20260101000000_ok']);
      expect(await tableExists(session, 't_ok')).toBe(true);
      expect(await tableExists(session, 't_half')).toBe(false);
      expect(await tableExists(session, 't_after')).toBe(false);
    });
  });

  it('refuses to boot over a migration that started and never finished', async () => {
    const db = await emptyDatabase();
    await db.database.withSession(async (session) => {
      await migrate(session, { migrations: [] });
      await session.query(
        `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at) VALUES ($1, $2, $3, now())`,
        ['00000000-0000-0000-0000-000000000001', 'x'.repeat(64), '20260101000000_half'],
      );
      await expect(
        migrate(session, { migrations: [migration('20260101000000_half', 'SELECT 1;')] }),
      ).rejects.toMatchObject({ code: 'failed_migration' });
    });
  });
});

(postgresServerAvailable() ? describe : describe.skip)(
  "the migrator on a PostgreSQL server (TEST_DATABASE_URL's or the run's container)",
  () => {
    it('applies each migration once when several sessions migrate at the same moment', async () => {
      const db = await emptyDatabase();
      const url = db.url!;
      // The sleep widens the window in which a second session would apply the same migration again.
      const migrations = [
        migration('20260101000000_slow', 'SELECT pg_sleep(0.3);\nCREATE TABLE t_slow (x integer);'),
        migration('20260102000000_next', 'CREATE TABLE t_next (x integer);'),
      ];
      const clients = await Promise.all(
        Array.from({ length: 4 }, async () => {
          const client = new pg.Client({ connectionString: url });
          await client.connect();
          return client;
        }),
      );
      try {
        const results = await Promise.all(
          clients.map((client) => migrate(pgSession(client), { migrations })),
        );
        const appliedBy = results.flatMap((result) => result.applied);
        expect(appliedBy.sort()).toEqual(['20260101000000_slow', '20260102000000_next']);
        const rows = await db.database.withSession(appliedRows);
        expect(rows.map((row) => row.migration_name)).toEqual(['20260101000000_slow', '20260102000000_next']);
      } finally {
        await Promise.all(clients.map((client) => client.end()));
      }
    });
  },
);
