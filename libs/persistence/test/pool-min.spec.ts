// DATABASE_POOL_MIN: the connections a PostgreSQL pool opens before the database is returned (before the app reports
// ready) and keeps while idle, so that a burst (a balancer moving a failed peer's load here) does not wait for new ones.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { openDatabase } from '@portcullis/persistence';
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

  /** The count once it reached `expected`, or the last one read when it did not within 5 s. */
  async function settledAt(expected: number): Promise<number> {
    const deadline = Date.now() + 5_000;
    let count = await connections();
    while (count !== expected && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      count = await connections();
    }
    return count;
  }

  const APPLICATION = 'pool-min-spec';
  const url = () => {
    const parsed = new URL(db.url!);
    parsed.searchParams.set('application_name', APPLICATION);
    return parsed.href;
  };

  it('opens the kept connections before it returns: 4 by default, the whole pool when it is smaller', async () => {
    for (const [options, expected] of [
      [{ poolSize: 10 }, 4],
      [{ poolSize: 2 }, 2],
      [{ poolSize: 10, poolMin: 7 }, 7],
      [{ poolSize: 10, poolMin: 0 }, 0],
    ] as const) {
      const database = await openDatabase({ url: url() }, { migrate: false, ...options });
      let first: number;
      let count: number;
      try {
        // Opened before openDatabase returned: at least that many right away (the check connection may add one).
        first = await connections();
        // Then read until it is what is expected (or 5 s passed): the boot's up-front check connection leaves
        // pg_stat_activity a moment after it ends. Idle pooled connections are closed only after 30 s, so a pool that
        // opened too many still shows them, and one that opened too few does not grow while nothing asks.
        count = await settledAt(expected);
      } finally {
        await database.close();
      }
      expect({ options, count, openedBeforeReturning: first >= expected }).toEqual({
        options,
        count: expected,
        openedBeforeReturning: true,
      });
      // Gone before the next pool is counted.
      expect(await settledAt(0)).toBe(0);
    }
  });
});
