import { afterEach, describe, expect, it } from '@jest/globals';
import {
  APP_SCHEMAS,
  findSchemaDrift,
  migrate,
  openDatabase,
  otherAppsMigrations,
  readMigrations,
  schemaTables,
  type SqlSession,
} from '@portcullis/persistence';
import { startDatabase, type TestDatabase } from '@portcullis/testing';

const APPS = Object.keys(APP_SCHEMAS) as (keyof typeof APP_SCHEMAS)[];

/** When the `own/<app>` migrations moved every database to its app's tables alone. */
const MOVED_AT = '20261203000000';

/** The tables of the database `session` is on (Prisma's bookkeeping table left out). */
async function tables(session: SqlSession): Promise<string[]> {
  const rows = await session.query<{ name: string }>(
    `SELECT table_name AS name FROM information_schema.tables
      WHERE table_schema = 'public' AND table_name <> '_prisma_migrations' ORDER BY table_name`,
  );
  return rows.map((row) => row.name);
}

async function applied(session: SqlSession): Promise<string[]> {
  const rows = await session.query<{ name: string }>(
    `SELECT migration_name AS name FROM "_prisma_migrations" ORDER BY migration_name`,
  );
  return rows.map((row) => row.name);
}

/**
 * One schema per app: each app's database holds its own tables (and those it shares) and nothing else, migrated by
 * its own migrations, checked against the Prisma schema's part for it (the drift check per app); a database that held
 * every app's tables, as every Portcullis database did, is moved to the app's own by its first boot.
 */
describe('one schema per app', () => {
  let db: TestDatabase | undefined;
  afterEach(async () => {
    await db?.stop();
    db = undefined;
  });

  it.each(APPS)(
    'gives %s a database of its own tables alone, exactly as the Prisma schema has them',
    async (app) => {
      db = await startDatabase({ migrate: false });
      const result = await db.database.withSession(async (session) => {
        await migrate(session, { migrations: await readMigrations(app) });
        return {
          tables: await tables(session),
          drift: await findSchemaDrift(session, undefined, app),
          everyTableDrift: await findSchemaDrift(session),
        };
      });
      expect(result.tables).toEqual([...schemaTables(app)].sort());
      expect(result.drift).toEqual([]);
      // Against the whole Prisma schema, the other apps' tables are missing: the check per app is what passes.
      expect(result.everyTableDrift.length).toBeGreaterThan(0);
    },
  );

  it.each(APPS)(
    'moves a database that held every app’s tables to the tables of %s, with a history of its own',
    async (app) => {
      db = await startDatabase({ migrate: false });
      const after = await db.database.withSession(async (session) => {
        // As a database was before each app had its own tables: every migration of every table applied, up to the
        // release that moved them (later migrations came after the move, in one app's database alone).
        const before = (await readMigrations('all')).filter((migration) => migration.name < MOVED_AT);
        await migrate(session, { migrations: before });
        await migrate(session, { migrations: await readMigrations(app) });
        return {
          tables: await tables(session),
          applied: await applied(session),
          drift: await findSchemaDrift(session, undefined, app),
        };
      });
      expect(after.tables).toEqual([...schemaTables(app)].sort());
      expect(after.applied).toEqual((await readMigrations(app)).map((migration) => migration.name));
      expect(after.drift).toEqual([]);
    },
  );

  it('stops, dropping nothing, when another app’s table holds rows: the database is shared', async () => {
    db = await startDatabase({ migrate: false });
    const outcome = await db.database.withSession(async (session) => {
      await migrate(session, { migrations: await readMigrations('all') });
      await session.exec(
        `INSERT INTO notes (id, owner, title, updated_at) VALUES (gen_random_uuid(), 'alice', 'groceries', now())`,
      );
      const before = await tables(session);
      const error = await migrate(session, { migrations: await readMigrations('authorization-server') }).then(
        () => undefined,
        (failure: unknown) => failure,
      );
      return { error, before, after: await tables(session), applied: await applied(session) };
    });
    expect(outcome.error).toMatchObject({
      code: 'migration_failed',
      message: expect.stringContaining('table notes holds rows of another Portcullis app'),
    });
    expect(outcome.after).toEqual(outcome.before);
    expect(outcome.applied).not.toContain('20261203000000_authorization_server_tables_only');
  });

  it('refuses, applying nothing, a database another app already holds (one DATABASE_URL given to two apps)', async () => {
    db = await startDatabase({ migrate: false });
    // The protected server boots first, as an app does: its own migrations, under its name.
    const first = await openDatabase(db.target, { schema: 'protected-server' });
    await first.close();
    const before = await db.database.withSession(async (session) => ({
      tables: await tables(session),
      applied: await applied(session),
    }));
    expect(before.tables).toEqual(['notes']);
    const second = await openDatabase(db.target, { schema: 'authorization-server' }).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(second).toMatchObject({
      code: 'another_app',
      message: expect.stringContaining("this database is the protected-server's"),
    });
    const after = await db.database.withSession(async (session) => ({
      tables: await tables(session),
      applied: await applied(session),
    }));
    expect(after).toEqual(before);
    expect([...(await otherAppsMigrations('authorization-server')).values()].sort()).toEqual([
      'protected-server',
      'proxy',
    ]);
  });
});
