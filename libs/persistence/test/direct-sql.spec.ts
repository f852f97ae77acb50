// Statements run straight on the driver adapter (Database.sql, UnitOfWork.query/execute): the same rows as the Prisma
// client's $queryRaw, the unit of work's transaction when one is in progress, outages as DatabaseUnavailableError,
// every statement told to the query observer; on PostgreSQL, each hot statement prepared once per connection. On the
// embedded database unless TEST_DATABASE_URL names a server.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  DatabaseUnavailableError,
  openDatabase,
  Prisma,
  UnitOfWork,
  type Database,
  type QueryEvent,
} from '@portcullis/persistence';
import { postgresServerAvailable, startDatabase, type TestDatabase } from '@portcullis/testing';

const describeWithPostgres = postgresServerAvailable() ? describe : describe.skip;

describe('statements on the driver adapter', () => {
  let db: TestDatabase;
  let database: Database;
  let work: UnitOfWork;
  const events: QueryEvent[] = [];
  beforeAll(async () => {
    db = await startDatabase();
    database = await openDatabase(db.target, { migrate: false, onQuery: (event) => events.push(event) });
    work = new UnitOfWork(database.prisma, {}, database.sql);
  });
  afterAll(async () => {
    await database?.close();
    await db?.stop();
  });

  /** A user row of its own, by id. */
  async function newUser(): Promise<string> {
    const user = await database.prisma.user.create({
      data: { username: `direct-${Math.random().toString(36).slice(2)}`, passwordHash: 'x' },
    });
    return user.id;
  }

  it('returns the rows $queryRaw returns, every type decoded alike', async () => {
    const at = new Date('2026-03-04T05:06:07.089Z');
    const statement = () => Prisma.sql`
      SELECT ${at}::timestamptz AS at, ${['a', 'b']}::text[] AS list, ${true}::boolean AS yes, ${null}::text AS nothing,
             ${JSON.stringify({ cnf: { jkt: 'k' } })}::jsonb AS json, 'null'::jsonb AS json_null,
             42::int AS small, 9007199254740993::bigint AS big, '5d1e7a0e-8d5f-4a43-9f5e-2d3c8d0a1b2c'::uuid AS id,
             ARRAY[${at}::timestamptz, NULL] AS times, NULL::timestamptz AS no_time, '{}'::text[] AS empty`;
    const direct = await database.sql.query<Record<string, unknown>>(statement());
    expect(direct).toEqual(await database.prisma.$queryRaw(statement()));
    expect(direct).toEqual([
      {
        at,
        list: ['a', 'b'],
        yes: true,
        nothing: null,
        json: { cnf: { jkt: 'k' } },
        json_null: null,
        small: 42,
        big: 9007199254740993n,
        id: '5d1e7a0e-8d5f-4a43-9f5e-2d3c8d0a1b2c',
        times: [at, null],
        no_time: null,
        empty: [],
      },
    ]);
  });

  it('counts the rows a statement changed, as $executeRaw does', async () => {
    const id = await newUser();
    const changed = await work.execute(
      Prisma.sql`UPDATE users SET name = ${'Direct'} WHERE id = ${id}::uuid OR id IS NULL`,
    );
    expect(changed).toBe(1);
    expect(await work.execute(Prisma.sql`UPDATE users SET name = 'x' WHERE false`)).toBe(0);
    expect((await database.prisma.user.findUniqueOrThrow({ where: { id } })).name).toBe('Direct');
  });

  it('takes part in the unit of work in progress: a statement of one that fails stays undone', async () => {
    const id = await newUser();
    const failed = work.run(async () => {
      await work.execute(Prisma.sql`UPDATE users SET name = ${'Undone'} WHERE id = ${id}::uuid`);
      const [seen] = await work.query<{ name: string }>(
        Prisma.sql`SELECT name FROM users WHERE id = ${id}::uuid`,
      );
      // Its own write, within its transaction.
      expect(seen?.name).toBe('Undone');
      throw new Error('rolled back');
    });
    await expect(failed).rejects.toThrow('rolled back');
    const [after] = await work.query<{ name: string | null }>(
      Prisma.sql`SELECT name FROM users WHERE id = ${id}::uuid`,
    );
    expect(after).toEqual({ name: null });
  });

  it('runs beside the Prisma client and its transactions without waiting on them forever', async () => {
    const id = await newUser();
    const results = await Promise.all([
      work.run(async () => {
        await work.execute(Prisma.sql`UPDATE users SET name = 'tx' WHERE id = ${id}::uuid`);
        return 'tx';
      }),
      ...Array.from({ length: 8 }, (_, i) =>
        database.sql.query<{ n: number }>(Prisma.sql`SELECT ${i}::int AS n`).then(([row]) => row?.n),
      ),
      database.prisma.user.count(),
    ]);
    expect(results.slice(0, 9)).toEqual(['tx', 0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it('tells the query observer of each statement', async () => {
    events.length = 0;
    await database.sql.query(Prisma.sql`SELECT 1 AS one`);
    await expect(database.sql.query(Prisma.sql`SELECT * FROM no_such_table`)).rejects.toThrow();
    expect(events.map(({ operation, ok }) => ({ operation, ok }))).toEqual([
      { operation: '$queryRaw', ok: true },
      { operation: '$queryRaw', ok: false },
    ]);
    expect(events.every((event) => event.seconds >= 0)).toBe(true);
  });
});

describeWithPostgres('statements on the driver adapter, on PostgreSQL', () => {
  let db: TestDatabase;
  const opened: Database[] = [];
  beforeAll(async () => {
    db = await startDatabase();
  });
  afterAll(async () => {
    await Promise.all(opened.map((database) => database.close()));
    await db?.stop();
  });

  async function open(poolTimeoutMs?: number): Promise<Database> {
    const database = await openDatabase(db.target, {
      migrate: false,
      poolSize: 1,
      ...(poolTimeoutMs ? { poolTimeoutMs } : {}),
    });
    opened.push(database);
    return database;
  }

  it('prepares a statement once per connection and then only executes it', async () => {
    const database = await open();
    const statement = (n: number) => Prisma.sql`SELECT ${n}::int AS n, 'prepared-once' AS marker`;
    for (let n = 0; n < 3; n++) {
      expect(await database.sql.query(statement(n))).toEqual([{ n, marker: 'prepared-once' }]);
    }
    // One pooled connection: this statement runs on the connection that prepared the others.
    const prepared = await database.sql.query<{ name: string }>(
      Prisma.sql`SELECT name FROM pg_prepared_statements WHERE statement LIKE ${'%prepared-once%'}`,
    );
    expect(prepared).toHaveLength(1);
    expect(prepared[0]?.name).toMatch(/^portcullis_\d+$/);
  });

  it('fails a statement that waited past the pool timeout as unavailable, and runs the next', async () => {
    const database = await open(300);
    const work = new UnitOfWork(database.prisma, { maxWaitMs: 300, timeoutMs: 30_000 }, database.sql);
    let holding!: () => void;
    const held = new Promise<void>((resolve) => (holding = resolve));
    const holder = work.run(async () => {
      await work.query(Prisma.sql`SELECT 1`);
      holding();
      await new Promise((resolve) => setTimeout(resolve, 1_500));
    });
    await held;
    const outcome = await database.sql.query(Prisma.sql`SELECT 1`).then(
      () => 'ran',
      (error: unknown) => error,
    );
    await holder;
    expect(outcome).toBeInstanceOf(DatabaseUnavailableError);
    await expect(database.sql.query(Prisma.sql`SELECT 2 AS two`)).resolves.toEqual([{ two: 2 }]);
  });
});
