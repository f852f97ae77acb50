import { AsyncLocalStorage } from 'node:async_hooks';
import type { DirectSql } from './direct-sql.js';
import type { Prisma, PrismaClient } from './generated/prisma/client.js';
import { translateDatabaseError } from './unavailable.js';

/** What a repository runs a statement on: the open transaction's client, or the pool's. */
export type Db = Prisma.TransactionClient;

/** How long a unit of work may wait for a connection, and run, before it is rolled back (milliseconds). */
export interface UnitOfWorkTimeouts {
  /** Waiting for a pooled connection to begin (Prisma's `maxWait`); default 5,000. */
  readonly maxWaitMs?: number;
  /** From `BEGIN` to `COMMIT` (Prisma's `timeout`); default 5,000. */
  readonly timeoutMs?: number;
}

/**
 * Work that happens whole or not at all: `run(fn)` opens one database transaction, and every repository that reads
 * its client from {@link UnitOfWork.db} while `fn` runs (however deep the call) takes part in it. A `run` inside a
 * `run` joins the outer one. When `fn` throws, or the database goes away before `COMMIT`, nothing it wrote stays:
 * a consumed code or refresh token is consumed only together with the tokens issued for it.
 *
 * Under READ COMMITTED (PostgreSQL's default) a conditional `UPDATE … WHERE consumed_at IS NULL` in one unit blocks a
 * concurrent one on the same row until the first commits or rolls back, and the second then sees the outcome: a
 * single-use value is used once, and a rolled-back use leaves it usable.
 *
 * @see https://www.postgresql.org/docs/current/transaction-iso.html#XACT-READ-COMMITTED
 * @see https://www.prisma.io/docs/orm/prisma-client/queries/transactions#interactive-transactions
 */
export class UnitOfWork {
  readonly #ambient = new AsyncLocalStorage<Db>();
  readonly #maxWait: number;
  readonly #timeout: number;
  readonly #direct: DirectSql | undefined;

  /**
   * @param direct The database's statements straight on its driver adapter (`Database.sql`), for
   *   {@link query} and {@link execute} outside a unit of work; without it they go through the Prisma client.
   */
  constructor(
    private readonly prisma: PrismaClient,
    timeouts: UnitOfWorkTimeouts = {},
    direct?: DirectSql,
  ) {
    this.#maxWait = timeouts.maxWaitMs ?? 5_000;
    this.#timeout = timeouts.timeoutMs ?? 5_000;
    this.#direct = direct;
  }

  /** The client for the next statement: the transaction of the unit of work in progress, or the pool. */
  get db(): Db {
    return this.#ambient.getStore() ?? this.prisma;
  }

  /**
   * Runs one raw statement (built with `Prisma.sql`) and returns its rows as `$queryRaw` would: in the unit of work in
   * progress, through its transaction; otherwise straight on the driver adapter, without the Prisma client's query
   * engine (for the statements of hot paths).
   */
  query<Row>(statement: Prisma.Sql): Promise<Row[]> {
    const tx = this.#ambient.getStore();
    if (tx || !this.#direct) return (tx ?? this.prisma).$queryRaw<Row[]>(statement);
    return this.#direct.query<Row>(statement);
  }

  /** Runs one raw statement as {@link query} does; returns how many rows it changed, as `$executeRaw` does. */
  execute(statement: Prisma.Sql): Promise<number> {
    const tx = this.#ambient.getStore();
    if (tx || !this.#direct) return (tx ?? this.prisma).$executeRaw(statement);
    return this.#direct.execute(statement);
  }

  /** Whether a unit of work is in progress in this call chain. */
  get active(): boolean {
    return this.#ambient.getStore() !== undefined;
  }

  /** Runs `fn` in one transaction (or in the one in progress), committed when `fn` resolves. */
  run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.active) return fn();
    return this.prisma
      .$transaction((tx) => this.#ambient.run(tx, fn), { maxWait: this.#maxWait, timeout: this.#timeout })
      .catch((error: unknown) => {
        // A transaction that could not begin or commit for an outage is a 503 too.
        throw translateDatabaseError(error);
      });
  }
}
