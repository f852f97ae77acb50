import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startDatabase, type TestDatabase } from './database.js';

describe('startDatabase', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await startDatabase();
  });
  afterAll(async () => {
    await db?.stop();
  });

  it('uses PostgreSQL when TEST_DATABASE_URL is set, and embedded PGlite on a machine with only Node', () => {
    if (process.env['TEST_DATABASE_URL']) {
      expect(db.kind).toBe('postgresql');
      expect(db.url).toMatch(/\/portcullis_test_\d+_[0-9a-f]{8}$/);
    } else {
      expect(['testcontainers', 'embedded']).toContain(db.kind);
    }
  });

  it('returns a migrated database the app schema can be written to', async () => {
    expect(await db.database.pendingMigrations()).toEqual([]);
    await db.database.prisma.user.create({ data: { username: 'alice', passwordHash: '$argon2id$stub' } });
    expect(await db.database.prisma.user.count()).toBe(1);
  });
});

(process.env['TEST_DATABASE_URL'] ? describe : describe.skip)('startDatabase on a server', () => {
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
