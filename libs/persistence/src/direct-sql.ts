// Statements run straight on the driver adapter the Prisma client itself runs on, without the client's query engine:
// for the few statements every token request makes, where the engine's work (serialising the query, interpreting its
// plan, deserialising the rows) costs more than the statement.
import type { PrismaPg } from '@prisma/adapter-pg';
import type { Prisma } from './generated/prisma/client.js';
import type { QueryObserver } from './database.js';
import { translateDatabaseError } from './unavailable.js';

/**
 * Prisma's driver adapter interface (`SqlQueryable`), which `@prisma/adapter-pg` and `pglite-prisma-adapter` both
 * implement: a parameterised statement in, rows as arrays with a column type each out.
 */
export type SqlQueryable = Pick<Awaited<ReturnType<PrismaPg['connect']>>, 'queryRaw' | 'executeRaw'>;
type SqlQuery = Parameters<SqlQueryable['queryRaw']>[0];
type ArgType = SqlQuery['argTypes'][number];
type ResultSet = Awaited<ReturnType<SqlQueryable['queryRaw']>>;

/**
 * The column types of the driver adapter interface (`ColumnTypeEnum` of `@prisma/driver-adapter-utils`) whose values
 * it hands over in a wire form (`DateTime` as ISO 8601 text, `Json` as its text, `Int64` as decimal text), as the
 * Prisma client decodes them for `$queryRaw`.
 */
const INT64 = 1;
const DATE_TIME = 10;
const JSON_VALUE = 11;
const INT64_ARRAY = 65;
const DATE_TIME_ARRAY = 74;
const JSON_ARRAY = 75;

/** A parameterised statement as `Prisma.sql` builds it: its text with `$n` placeholders and the values in order. */
export type SqlStatement = Pick<Prisma.Sql, 'text' | 'values'>;

/**
 * Runs statements on a driver adapter of its own over the pool (or the embedded instance) the Prisma client uses:
 * rows come back as `$queryRaw` returns them (`timestamptz` a `Date`, `jsonb` parsed, `bigint` a `BigInt`, arrays as
 * arrays), a statement that fails because the database cannot be reached rejects with a `DatabaseUnavailableError`,
 * and every statement is told to the query observer as the client's would be. Outside any transaction: a unit of work
 * runs its statements through its own (see `UnitOfWork.query`).
 */
export interface DirectSql {
  query<Row>(statement: SqlStatement): Promise<Row[]>;
  execute(statement: SqlStatement): Promise<number>;
}

export function directSql(adapter: SqlQueryable, onQuery?: QueryObserver): DirectSql {
  async function observed<T>(operation: string, run: () => Promise<T>): Promise<T> {
    const started = onQuery ? performance.now() : 0;
    let ok = false;
    try {
      const result = await run();
      ok = true;
      return result;
    } catch (error) {
      throw translateDatabaseError(error);
    } finally {
      onQuery?.({ operation, seconds: (performance.now() - started) / 1000, ok });
    }
  }
  return {
    query: <Row>(statement: SqlStatement) =>
      observed('$queryRaw', async () => rowsOf<Row>(await adapter.queryRaw(sqlQuery(statement)))),
    execute: (statement) => observed('$executeRaw', () => adapter.executeRaw(sqlQuery(statement))),
  };
}

/**
 * The adapter's query: a `Date` (or a list of them) typed `datetime`, which the adapter sends as the client does; any
 * other value as it is (the statement casts its parameters).
 */
function sqlQuery(statement: SqlStatement): SqlQuery {
  const args = statement.values;
  const argTypes: ArgType[] = new Array<ArgType>(args.length);
  for (let i = 0; i < args.length; i++) {
    const value = args[i];
    const list = Array.isArray(value);
    const first: unknown = list ? (value as unknown[])[0] : value;
    argTypes[i] = {
      scalarType: first instanceof Date ? 'datetime' : 'unknown',
      arity: list ? 'list' : 'scalar',
    };
  }
  return { sql: statement.text, args: args as unknown[], argTypes };
}

/** The adapter's rows as objects keyed by column name, each value decoded as `$queryRaw` decodes it. */
function rowsOf<Row>({ columnNames, columnTypes, rows }: ResultSet): Row[] {
  const result: Row[] = new Array<Row>(rows.length);
  for (let r = 0; r < rows.length; r++) {
    const values = rows[r] as unknown[];
    const row: Record<string, unknown> = {};
    for (let c = 0; c < columnNames.length; c++) {
      row[columnNames[c] as string] = decode(values[c], columnTypes[c] as number);
    }
    result[r] = row as Row;
  }
  return result;
}

function decode(value: unknown, type: number): unknown {
  if (value === null || value === undefined) return null;
  switch (type) {
    case DATE_TIME:
      return new Date(value as string);
    case JSON_VALUE:
      return typeof value === 'string' ? JSON.parse(value) : value;
    case INT64:
      return BigInt(value as string);
    case DATE_TIME_ARRAY:
    case JSON_ARRAY:
    case INT64_ARRAY:
      return (value as unknown[]).map((element) => decode(element, type - 64));
    default:
      return value;
  }
}

/** Past this many different statement texts, further ones run unnamed (each connection keeps what it prepared). */
const MAX_PREPARED = 64;

/**
 * Names for the adapter's statements, one per statement text, so that each pooled connection parses and plans a hot
 * statement once and then only binds and executes it (the extended query protocol's named prepared statements); the
 * empty name is the unnamed statement, parsed again each time.
 *
 * @see https://www.postgresql.org/docs/15/protocol-flow.html#PROTOCOL-FLOW-EXT-QUERY
 */
export function preparedStatementNames(): (query: SqlQuery) => string {
  const names = new Map<string, string>();
  return ({ sql }) => {
    let name = names.get(sql);
    if (name === undefined) {
      if (names.size >= MAX_PREPARED) return '';
      name = `portcullis_${names.size}`;
      names.set(sql, name);
    }
    return name;
  };
}
