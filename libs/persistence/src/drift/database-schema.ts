import type { SqlSession } from '../migrator/sql-session.js';
import {
  byName,
  type ColumnDescription,
  type EnumDescription,
  type ForeignKeyDescription,
  type IndexDescription,
  type KeyDescription,
  type ReferentialAction,
  type SchemaDescription,
  type TableDescription,
} from './schema-description.js';

/** Prisma Migrate's bookkeeping, which is no part of the schema it migrates. */
const MIGRATIONS_TABLE = '_prisma_migrations';

const TABLES = `
SELECT table_name FROM information_schema.tables
 WHERE table_schema = $1 AND table_type = 'BASE TABLE' AND table_name <> $2`;

// information_schema.columns reports an array as ARRAY with no element modifiers (timestamptz(3)[] loses
// its 3), so the element's are worked out from the attribute's type modifier with information_schema's own
// helpers, which PostgreSQL and PGlite both ship.
const COLUMNS = `
SELECT c.table_name, c.column_name, c.data_type, c.udt_name, c.is_nullable, c.column_default, c.is_identity,
       c.character_maximum_length::int, c.numeric_precision::int, c.numeric_scale::int, c.datetime_precision::int,
       e.data_type AS element_data_type, e.udt_name AS element_udt_name,
       information_schema._pg_char_max_length(t.typelem, a.atttypmod) AS element_character_maximum_length,
       information_schema._pg_numeric_precision(t.typelem, a.atttypmod) AS element_numeric_precision,
       information_schema._pg_numeric_scale(t.typelem, a.atttypmod) AS element_numeric_scale,
       information_schema._pg_datetime_precision(t.typelem, a.atttypmod) AS element_datetime_precision
  FROM information_schema.columns c
  LEFT JOIN information_schema.element_types e
    ON e.object_catalog = c.table_catalog AND e.object_schema = c.table_schema AND e.object_name = c.table_name
   AND e.object_type = 'TABLE' AND e.collection_type_identifier = c.dtd_identifier
  LEFT JOIN pg_catalog.pg_namespace n ON n.nspname = c.table_schema
  LEFT JOIN pg_catalog.pg_class r ON r.relnamespace = n.oid AND r.relname = c.table_name
  LEFT JOIN pg_catalog.pg_attribute a ON a.attrelid = r.oid AND a.attname = c.column_name
  LEFT JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
 WHERE c.table_schema = $1
 ORDER BY c.table_name, c.ordinal_position`;

const PRIMARY_KEYS = `
SELECT tc.table_name, tc.constraint_name, k.column_name
  FROM information_schema.table_constraints tc
  JOIN information_schema.key_column_usage k
    ON k.constraint_schema = tc.constraint_schema AND k.constraint_name = tc.constraint_name
   AND k.table_schema = tc.table_schema AND k.table_name = tc.table_name
 WHERE tc.table_schema = $1 AND tc.constraint_type = 'PRIMARY KEY'
 ORDER BY tc.table_name, k.ordinal_position`;

// Indexes come from pg_index: information_schema has no view of indexes, and Prisma makes @unique a unique
// index rather than a constraint. The primary key's index is described as the primary key.
const INDEXES = `
SELECT t.relname AS table_name, i.relname AS index_name, x.indisunique AS is_unique, am.amname AS method,
       ARRAY(
         SELECT COALESCE(a.attname::text, pg_catalog.pg_get_indexdef(x.indexrelid, k, true))
                || CASE WHEN (x.indoption[k - 1] & 1) = 1 THEN ' DESC' ELSE '' END
           FROM generate_series(1, x.indnkeyatts) AS k
           LEFT JOIN pg_catalog.pg_attribute a
             ON a.attrelid = x.indrelid AND a.attnum = x.indkey[k - 1] AND x.indkey[k - 1] <> 0
          ORDER BY k
       ) AS column_names
  FROM pg_catalog.pg_index x
  JOIN pg_catalog.pg_class i ON i.oid = x.indexrelid
  JOIN pg_catalog.pg_class t ON t.oid = x.indrelid
  JOIN pg_catalog.pg_namespace n ON n.oid = t.relnamespace
  JOIN pg_catalog.pg_am am ON am.oid = i.relam
 WHERE n.nspname = $1 AND t.relkind IN ('r', 'p') AND NOT x.indisprimary AND t.relname <> $2`;

// Foreign keys come from pg_constraint: information_schema cannot name the referenced columns when the
// reference is to a unique index rather than a unique constraint, which is what Prisma's @unique makes.
const FOREIGN_KEYS = `
SELECT c.conname AS constraint_name, t.relname AS table_name, rt.relname AS referenced_table,
       c.confdeltype::text AS on_delete, c.confupdtype::text AS on_update,
       ARRAY(SELECT a.attname::text FROM unnest(c.conkey) WITH ORDINALITY AS k(attnum, position)
               JOIN pg_catalog.pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum
              ORDER BY k.position) AS column_names,
       ARRAY(SELECT a.attname::text FROM unnest(c.confkey) WITH ORDINALITY AS k(attnum, position)
               JOIN pg_catalog.pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.attnum
              ORDER BY k.position) AS referenced_column_names
  FROM pg_catalog.pg_constraint c
  JOIN pg_catalog.pg_class t ON t.oid = c.conrelid
  JOIN pg_catalog.pg_namespace n ON n.oid = t.relnamespace
  JOIN pg_catalog.pg_class rt ON rt.oid = c.confrelid
 WHERE c.contype = 'f' AND n.nspname = $1`;

const ENUMS = `
SELECT t.typname::text AS name,
       ARRAY(SELECT e.enumlabel::text FROM pg_catalog.pg_enum e WHERE e.enumtypid = t.oid
              ORDER BY e.enumsortorder) AS labels
  FROM pg_catalog.pg_type t
  JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace
 WHERE t.typtype = 'e' AND n.nspname = $1`;

/** pg_constraint's one-letter referential actions. */
const ACTIONS: Record<string, ReferentialAction> = {
  a: 'NO ACTION',
  r: 'RESTRICT',
  c: 'CASCADE',
  n: 'SET NULL',
  d: 'SET DEFAULT',
};

interface ColumnRow extends Record<string, unknown> {
  table_name: string;
  column_name: string;
  data_type: string;
  udt_name: string;
  is_nullable: 'YES' | 'NO';
  column_default: string | null;
  is_identity: 'YES' | 'NO';
  character_maximum_length: number | null;
  numeric_precision: number | null;
  numeric_scale: number | null;
  datetime_precision: number | null;
  element_data_type: string | null;
  element_udt_name: string | null;
  element_character_maximum_length: number | null;
  element_numeric_precision: number | null;
  element_numeric_scale: number | null;
  element_datetime_precision: number | null;
}

/** The facts information_schema gives about a type, from which its description is spelt. */
interface TypeFacts {
  dataType: string;
  udtName: string;
  length: number | null;
  precision: number | null;
  scale: number | null;
  datetimePrecision: number | null;
}

/**
 * Describes the tables, columns, keys, indexes and enums of one schema of a live database in the words
 * {@link expectedSchemaFromPrisma} uses, leaving out Prisma Migrate's `_prisma_migrations` table. Reads
 * `information_schema` where it is precise enough and `pg_catalog` where it is not, so it works the same on
 * PostgreSQL and on PGlite.
 *
 * @see https://www.postgresql.org/docs/current/infoschema-columns.html
 */
export async function readDatabaseSchema(session: SqlSession, schema = 'public'): Promise<SchemaDescription> {
  const tableRows = await session.query<{ table_name: string }>(TABLES, [schema, MIGRATIONS_TABLE]);
  const tables = new Map<string, TableDescription>(
    tableRows.map(({ table_name: name }) => [
      name,
      { name, columns: [], primaryKey: null, indexes: [], foreignKeys: [] },
    ]),
  );

  for (const row of await session.query<ColumnRow>(COLUMNS, [schema])) {
    tables.get(row.table_name)?.columns.push(describeColumn(row));
  }

  const keyRows = await session.query<{ table_name: string; constraint_name: string; column_name: string }>(
    PRIMARY_KEYS,
    [schema],
  );
  for (const row of keyRows) {
    const table = tables.get(row.table_name);
    if (!table) continue;
    const key: KeyDescription = table.primaryKey ?? { name: row.constraint_name, columns: [] };
    key.columns.push(row.column_name);
    table.primaryKey = key;
  }

  const indexRows = await session.query<{
    table_name: string;
    index_name: string;
    is_unique: boolean;
    method: string;
    column_names: string[];
  }>(INDEXES, [schema, MIGRATIONS_TABLE]);
  for (const row of indexRows) {
    const index: IndexDescription = {
      name: row.index_name,
      columns: row.column_names,
      unique: row.is_unique,
      method: row.method,
    };
    tables.get(row.table_name)?.indexes.push(index);
  }

  const foreignKeyRows = await session.query<{
    constraint_name: string;
    table_name: string;
    referenced_table: string;
    on_delete: string;
    on_update: string;
    column_names: string[];
    referenced_column_names: string[];
  }>(FOREIGN_KEYS, [schema]);
  for (const row of foreignKeyRows) {
    const foreignKey: ForeignKeyDescription = {
      name: row.constraint_name,
      columns: row.column_names,
      referencedTable: row.referenced_table,
      referencedColumns: row.referenced_column_names,
      onDelete: ACTIONS[row.on_delete] ?? 'NO ACTION',
      onUpdate: ACTIONS[row.on_update] ?? 'NO ACTION',
    };
    tables.get(row.table_name)?.foreignKeys.push(foreignKey);
  }

  const enumRows = await session.query<{ name: string; labels: string[] }>(ENUMS, [schema]);
  const enums: EnumDescription[] = enumRows.map((row) => ({ name: row.name, values: row.labels }));

  const sorted = [...tables.values()].map((table) => ({
    ...table,
    indexes: byName(table.indexes),
    foreignKeys: byName(table.foreignKeys),
  }));
  return { tables: byName(sorted), enums: byName(enums) };
}

function describeColumn(row: ColumnRow): ColumnDescription {
  const type =
    row.data_type === 'ARRAY'
      ? `${spellType({
          dataType: row.element_data_type ?? 'unknown',
          udtName: row.element_udt_name ?? row.udt_name.replace(/^_/, ''),
          length: row.element_character_maximum_length,
          precision: row.element_numeric_precision,
          scale: row.element_numeric_scale,
          datetimePrecision: row.element_datetime_precision,
        })}[]`
      : spellType({
          dataType: row.data_type,
          udtName: row.udt_name,
          length: row.character_maximum_length,
          precision: row.numeric_precision,
          scale: row.numeric_scale,
          datetimePrecision: row.datetime_precision,
        });
  // An identity column behaves as Prisma's serial does: the database numbers the rows.
  const identity = row.is_identity === 'YES' ? 'autoincrement()' : null;
  return {
    name: row.column_name,
    type,
    nullable: row.is_nullable === 'YES',
    default: row.column_default ?? identity,
  };
}

/** Spells a type the way {@link expectedSchemaFromPrisma} does: `timestamp(3) with time zone`, `numeric(65,30)`. */
function spellType(facts: TypeFacts): string {
  const { dataType } = facts;
  if (dataType === 'USER-DEFINED') return facts.udtName;
  if (['character', 'character varying', 'bit', 'bit varying'].includes(dataType)) {
    return facts.length === null ? dataType : `${dataType}(${facts.length})`;
  }
  if (dataType === 'numeric') {
    return facts.precision === null ? dataType : `numeric(${facts.precision},${facts.scale ?? 0})`;
  }
  const datetime = /^(timestamp|time) (with(?:out)? time zone)$/.exec(dataType);
  if (datetime && facts.datetimePrecision !== null) {
    return `${datetime[1]}(${facts.datetimePrecision}) ${datetime[2]}`;
  }
  return dataType;
}
