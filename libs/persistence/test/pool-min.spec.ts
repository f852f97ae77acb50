// DATABASE_POOL_MIN: the connections a PostgreSQL pool opens before the database is returned (before the app reports
// ready) and keeps while idle, so that a burst (a balancer moving a failed peer's load here) does not wait for new ones.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { openDatabase, type Database } from '@portcullis/persistence';
import pg from 'pg';
import { postgresServerAvailable, startDatabase, type TestDatabase } from '@portcullis/testing';

const describeWithPostgres = postgresServerAvailable() ? describe : describe.skip;

describeWithPostgres('the pool minimum', () => {
  let db: TestDatabase;
  let observer: pg.Client;
  beforeAll(async () => {
    db = await startDatabase({ migrate: false });
    observer = new pg.Client({ connectionString: db.url });
    await observer.connect();
  });
  afterAll(async () => {
    await observer?.end();
    await db?.stop();
  });

  /** Connections to the test database other than the observer's and the test harness's own pool. */
  async function connections(): Promise<number> {
    const { rows } = await observer.query<{ count: string }>(
      `SELECT count(*) FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid() AND application_name = $1`,
      [APPLICATION],
    );
    return Number(rows[0]!.count);
  }

  const APPLICATION = 'pool-min-spec';
  const url = () => {
    const parsed = new URL(db.url!);
    parsed.searchParams.set('application_name', APPLICATION);
    return parsed.href;
  };

  async function opened(options: { poolSize: number; poolMin?: number }): Promise<[Database, number]> {
    const database = await openDatabase({ url: url() }, { migrate: false, ...options });
    try {
      return [database, await connections()];
    } catch (error) {
      await database.close();
      throw error;
    }
  }

  it('opens the kept connections before it returns: 4 by default, the whole pool when it is smaller', async () => {
    for (const [options, expected] of [
      [{ poolSize: 10 }, 4],
      [{ poolSize: 2 }, 2],
      [{ poolSize: 10, poolMin: 7 }, 7],
      [{ poolSize: 10, poolMin: 0 }, 0],
    ] as const) {
      const [database, count] = await opened(options);
      await database.close();
      expect({ options, count }).toEqual({ options, count: expected });
    }
    expect(await connections()).toBe(0);
  });
});
