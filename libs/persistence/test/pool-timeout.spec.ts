// DATABASE_POOL_TIMEOUT_MS: how long a statement or a unit of work waits for a pooled PostgreSQL connection. Past it
// the wait fails as "unavailable" (which a request answers 503 with Retry-After), never hangs, never a 500; within
// it the statement simply runs once a connection frees up.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  isDatabaseUnavailable,
  openDatabase,
  translateDatabaseError,
  UnitOfWork,
  type Database,
} from '@portcullis/persistence';
import { postgresServerAvailable, startDatabase, type TestDatabase } from '@portcullis/testing';

const describeWithPostgres = postgresServerAvailable() ? describe : describe.skip;

describeWithPostgres('the pool timeout', () => {
  let db: TestDatabase;
  const opened: Database[] = [];
  beforeAll(async () => {
    db = await startDatabase();
  });
  afterAll(async () => {
    await Promise.all(opened.map((database) => database.close()));
    await db?.stop();
  });

  /** Longer than the short timeout below and than the 2 s this once was, shorter than the long one and the default. */
  const HOLD_MS = 2_500;

  /** A one-connection pool whose only connection a transaction holds for {@link HOLD_MS}. */
  async function busyPool(poolTimeoutMs: number) {
    const database = await openDatabase(db.target, { migrate: false, poolSize: 1, poolTimeoutMs });
    opened.push(database);
    const unitOfWork = new UnitOfWork(database.prisma, { maxWaitMs: poolTimeoutMs, timeoutMs: 30_000 });
    let holding!: () => void;
    const held = new Promise<void>((resolve) => (holding = resolve));
    const holder = unitOfWork.run(async () => {
      await unitOfWork.db.$queryRaw`SELECT 1`;
      holding();
      await new Promise((resolve) => setTimeout(resolve, HOLD_MS));
    });
    await held;
    return { database, unitOfWork, holder };
  }

  it('fails a statement and a unit of work as unavailable once they waited past it', async () => {
    const { database, unitOfWork, holder } = await busyPool(300);
    // Each would run once the connection is free, were the setting not honoured.
    const [statement, unit] = await Promise.all([
      database.prisma.$queryRaw`SELECT 1`.then(
        () => 'ran',
        (error: unknown) => translateDatabaseError(error),
      ),
      unitOfWork
        .run(async () => unitOfWork.db.$queryRaw`SELECT 1`)
        .then(
          () => 'ran',
          (error: unknown) => error,
        ),
    ]);
    await holder;
    expect(isDatabaseUnavailable(statement)).toBe(true);
    expect(isDatabaseUnavailable(unit)).toBe(true);
    // The pool is whole again: the next statement runs.
    await expect(database.prisma.$queryRaw`SELECT 1 AS one`).resolves.toEqual([{ one: 1 }]);
  });

  it('lets a statement and a unit of work wait within it and run once the connection is free', async () => {
    const { database, unitOfWork, holder } = await busyPool(10_000);
    const statement = database.prisma.$queryRaw`SELECT 2 AS two`;
    const unit = unitOfWork.run(async () => unitOfWork.db.$queryRaw`SELECT 3 AS three`);
    await holder;
    await expect(statement).resolves.toEqual([{ two: 2 }]);
    await expect(unit).resolves.toEqual([{ three: 3 }]);
  });
});
