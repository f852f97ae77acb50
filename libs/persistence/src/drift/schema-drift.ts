import { readFile } from 'node:fs/promises';
import { schemaTables, type DatabaseSchema } from '../migrator/migrations.js';
import type { SqlSession } from '../migrator/sql-session.js';
import { readDatabaseSchema } from './database-schema.js';
import { sameDefault } from './default-expression.js';
import { expectedSchemaFromPrisma } from './expected-schema.js';
import type {
  ForeignKeyDescription,
  IndexDescription,
  KeyDescription,
  SchemaDescription,
  TableDescription,
} from './schema-description.js';

export { expectedSchemaFromPrisma } from './expected-schema.js';
export { readDatabaseSchema } from './database-schema.js';
export type {
  ColumnDescription,
  EnumDescription,
  ForeignKeyDescription,
  IndexDescription,
  KeyDescription,
  ReferentialAction,
  SchemaDescription,
  TableDescription,
} from './schema-description.js';

/** The schema shipped with this package, beside `src` and `dist` alike. */
const SCHEMA_FILE = new URL('../../prisma/schema.prisma', import.meta.url);

/**
 * Every way the database `session` is connected to differs from what Prisma Migrate would create for
 * `schemaText` (by default this package's `prisma/schema.prisma`), one readable line each, such as
 * `clients.client_name: missing in database` or `index clients_origin_idx: missing in database`. An empty
 * list means the hand-written migrations produced exactly the schema: the check `prisma migrate diff` would
 * make, for machines where Prisma's schema engine cannot run.
 *
 * @see https://www.prisma.io/docs/orm/reference/prisma-cli-reference#migrate-diff
 */
export async function findSchemaDrift(
  session: SqlSession,
  schemaText?: string,
  databaseSchema: DatabaseSchema = 'all',
): Promise<string[]> {
  const text = schemaText ?? (await readFile(SCHEMA_FILE, 'utf8'));
  const expected = await expectedSchemaFromPrisma(text);
  return compareSchemas(await readDatabaseSchema(session), ofSchema(expected, databaseSchema));
}

/**
 * The part of the Prisma schema a database of `databaseSchema` holds: one app's tables (its `APP_SCHEMAS` sets), or
 * every table. A table of the Prisma schema outside them is one the app's database must not have.
 */
function ofSchema(expected: SchemaDescription, databaseSchema: DatabaseSchema): SchemaDescription {
  if (databaseSchema === 'all') return expected;
  const tables = new Set(schemaTables(databaseSchema));
  return { ...expected, tables: expected.tables.filter((table) => tables.has(table.name)) };
}

/**
 * The differences between a database's schema and the expected one, one line each, tables first in name
 * order, then enums. Names in the lines are database names (`@map`/`@@map` applied).
 */
export function compareSchemas(database: SchemaDescription, schema: SchemaDescription): string[] {
  const lines: string[] = [];
  const actualTables = new Map(database.tables.map((table) => [table.name, table]));
  for (const expected of schema.tables) {
    const actual = actualTables.get(expected.name);
    if (actual) lines.push(...compareTables(actual, expected));
    else lines.push(`table ${expected.name}: missing in database`);
  }
  const expectedTables = new Set(schema.tables.map((table) => table.name));
  for (const table of database.tables) {
    if (!expectedTables.has(table.name)) lines.push(`table ${table.name}: in database, not in schema`);
  }

  const actualEnums = new Map(database.enums.map((e) => [e.name, e.values]));
  for (const expected of schema.enums) {
    const actual = actualEnums.get(expected.name);
    if (!actual) {
      lines.push(`enum ${expected.name}: missing in database`);
      continue;
    }
    for (const value of expected.values) {
      if (!actual.includes(value)) lines.push(`enum ${expected.name}: value ${value} missing in database`);
    }
    for (const value of actual) {
      if (!expected.values.includes(value))
        lines.push(`enum ${expected.name}: value ${value} in database, not in schema`);
    }
    const common = (values: string[], other: string[]) => values.filter((value) => other.includes(value));
    const [actualOrder, expectedOrder] = [common(actual, expected.values), common(expected.values, actual)];
    if (actualOrder.join() !== expectedOrder.join()) {
      lines.push(
        `enum ${expected.name}: order ${list(actualOrder)} in database, ${list(expectedOrder)} in schema`,
      );
    }
  }
  const expectedEnums = new Set(schema.enums.map((e) => e.name));
  for (const e of database.enums) {
    if (!expectedEnums.has(e.name)) lines.push(`enum ${e.name}: in database, not in schema`);
  }
  return lines;
}

function compareTables(database: TableDescription, schema: TableDescription): string[] {
  const lines: string[] = [];
  const at = (column: string) => `${schema.name}.${column}`;
  const actualColumns = new Map(database.columns.map((column) => [column.name, column]));
  for (const expected of schema.columns) {
    const actual = actualColumns.get(expected.name);
    if (!actual) {
      lines.push(`${at(expected.name)}: missing in database`);
      continue;
    }
    if (actual.type !== expected.type) {
      lines.push(`${at(expected.name)}: type ${actual.type} in database, ${expected.type} in schema`);
    }
    if (actual.nullable !== expected.nullable) {
      const word = (nullable: boolean) => (nullable ? 'nullable' : 'required');
      lines.push(
        `${at(expected.name)}: ${word(actual.nullable)} in database, ${word(expected.nullable)} in schema`,
      );
    }
    if (!sameDefault(actual.default, expected.default, expected.type)) {
      lines.push(
        `${at(expected.name)}: default ${actual.default ?? 'none'} in database, ${expected.default ?? 'none'} in schema`,
      );
    }
  }
  const expectedColumns = new Set(schema.columns.map((column) => column.name));
  for (const column of database.columns) {
    if (!expectedColumns.has(column.name)) lines.push(`${at(column.name)}: in database, not in schema`);
  }

  const key = (primaryKey: KeyDescription | null) =>
    primaryKey ? `${primaryKey.name} ${list(primaryKey.columns)}` : 'none';
  if (key(database.primaryKey) !== key(schema.primaryKey)) {
    lines.push(
      `table ${schema.name}: primary key ${key(database.primaryKey)} in database, ${key(schema.primaryKey)} in schema`,
    );
  }

  lines.push(...compareNamed('index', database.indexes, schema.indexes, compareIndexes));
  lines.push(...compareNamed('foreign key', database.foreignKeys, schema.foreignKeys, compareForeignKeys));
  return lines;
}

function compareIndexes(database: IndexDescription, schema: IndexDescription): string[] {
  const lines: string[] = [];
  if (database.unique !== schema.unique) {
    const word = (unique: boolean) => (unique ? 'unique' : 'not unique');
    lines.push(`${word(database.unique)} in database, ${word(schema.unique)} in schema`);
  }
  if (list(database.columns) !== list(schema.columns)) {
    lines.push(`columns ${list(database.columns)} in database, ${list(schema.columns)} in schema`);
  }
  if (database.method !== schema.method) {
    lines.push(`method ${database.method} in database, ${schema.method} in schema`);
  }
  return lines;
}

function compareForeignKeys(database: ForeignKeyDescription, schema: ForeignKeyDescription): string[] {
  const lines: string[] = [];
  const target = (key: ForeignKeyDescription) =>
    `${list(key.columns)} -> ${key.referencedTable}${list(key.referencedColumns)}`;
  if (target(database) !== target(schema)) {
    lines.push(`references ${target(database)} in database, ${target(schema)} in schema`);
  }
  if (database.onDelete !== schema.onDelete) {
    lines.push(`on delete ${database.onDelete} in database, ${schema.onDelete} in schema`);
  }
  if (database.onUpdate !== schema.onUpdate) {
    lines.push(`on update ${database.onUpdate} in database, ${schema.onUpdate} in schema`);
  }
  return lines;
}

function compareNamed<T extends { name: string }>(
  kind: string,
  database: T[],
  schema: T[],
  compare: (database: T, schema: T) => string[],
): string[] {
  const lines: string[] = [];
  const actual = new Map(database.map((item) => [item.name, item]));
  for (const expected of schema) {
    const found = actual.get(expected.name);
    if (!found) lines.push(`${kind} ${expected.name}: missing in database`);
    else
      lines.push(...compare(found, expected).map((difference) => `${kind} ${expected.name}: ${difference}`));
  }
  const names = new Set(schema.map((item) => item.name));
  for (const item of database) {
    if (!names.has(item.name)) lines.push(`${kind} ${item.name}: in database, not in schema`);
  }
  return lines;
}

function list(items: readonly string[]): string {
  return `(${items.join(', ')})`;
}
