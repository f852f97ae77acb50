import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { postgresServerAvailable, startDatabase, type TestDatabase } from './database.js';
import { CONTAINER_POSTGRES_URL } from './runtime.js';

describe('startDatabase', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await startDatabase();
  });
  afterAll(async () => {
    await db?.stop();
  });

  it("uses TEST_DATABASE_URL's server, else the run's PostgreSQL container, else embedded PGlite", () => {
    if (process.env['TEST_DATABASE_URL']) {
      expect(db.kind).toBe('postgresql');
    } else if (process.env[CONTAINER_POSTGRES_URL]) {
      expect(db.kind).toBe('testcontainers');
      expect(new URL(db.url!).host).toBe(new URL(process.env[CONTAINER_POSTGRES_URL]!).host);
    } else {
      expect(db.kind).toBe('embedded');
      expect(postgresServerAvailable()).toBe(false);
      return;
    }
    expect(db.url).toMatch(/\/portcullis_test_\d+_[0-9a-f]{8}$/);
    expect(postgresServerAvailable()).toBe(true);
  });

  it('returns a migrated database the app schema can be written to', async () => {
    expect(await db.database.pendingMigrations()).toEqual([]);
    await db.database.prisma.user.create({ data: { username: 'alice', passwordHash: '$argon2id$stub' } });
    expect(await db.database.prisma.user.count()).toBe(1);
  });
});

(postgresServerAvailable() ? describe : describe.skip)('startDatabase on a server', () => {
  it('drops the per-file database on stop', async () => {
    const db = await startDatabase({ migrate: false });
    const name = new URL(db.url!).pathname.slice(1);
    await db.stop();
    const other = await startDatabase({ migrate: false });
    try {
      const rows = await other.database.withSession((session) =>
        session.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_database WHERE datname = $1', [name]),
      );
      expect(rows[0]?.n).toBe(0);
    } finally {
      await other.stop();
    }
  });
});
