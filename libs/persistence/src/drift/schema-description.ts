/**
 * A database schema reduced to what the drift check compares: the shape Prisma Migrate would create for
 * `schema.prisma`, or the shape a database has. Both sides use PostgreSQL's own words, so a difference can be
 * reported as it would read in `psql`.
 */
export interface SchemaDescription {
  /** Tables by name, sorted. */
  tables: TableDescription[];
  /** Enum types by name, sorted. */
  enums: EnumDescription[];
}

export interface TableDescription {
  name: string;
  /** In declaration order. */
  columns: ColumnDescription[];
  primaryKey: KeyDescription | null;
  /** Unique and plain indexes, sorted by name; the primary key's own index is not listed. */
  indexes: IndexDescription[];
  /** Sorted by name. */
  foreignKeys: ForeignKeyDescription[];
}

export interface ColumnDescription {
  name: string;
  /**
   * The type as `information_schema` words it, with its modifiers: `text`, `timestamp(3) with time zone`,
   * `numeric(65,30)`, `character varying(20)`; an enum or other user-defined type by its name; an array as its
   * element type followed by `[]`.
   */
  type: string;
  nullable: boolean;
  /**
   * The default as SQL (`CURRENT_TIMESTAMP`, `'none'`, `ARRAY['code']`), `null` for none. A serial or identity
   * column reads `autoincrement()`; `dbgenerated()` stands for a database default the schema does not spell out.
   */
  default: string | null;
}

export interface KeyDescription {
  name: string;
  columns: string[];
}

export interface IndexDescription {
  name: string;
  /** Column names in key order, a descending one suffixed ` DESC`. */
  columns: string[];
  unique: boolean;
  /** The access method: `btree`, `hash`, `gin`, `gist`, `spgist` or `brin`. */
  method: string;
}

/** What PostgreSQL does to referencing rows, as `ON DELETE` / `ON UPDATE` spell it. */
export type ReferentialAction = 'CASCADE' | 'RESTRICT' | 'NO ACTION' | 'SET NULL' | 'SET DEFAULT';

export interface ForeignKeyDescription {
  name: string;
  columns: string[];
  referencedTable: string;
  referencedColumns: string[];
  onDelete: ReferentialAction;
  onUpdate: ReferentialAction;
}

export interface EnumDescription {
  name: string;
  /** Labels in sort order. */
  values: string[];
}

/** PostgreSQL's NAMEDATALEN - 1: longer identifiers are truncated, and Prisma truncates its names to fit. */
const MAX_IDENTIFIER_BYTES = 63;

/**
 * The constraint or index name Prisma Migrate gives when the schema has no `map:`: `<table>_pkey`,
 * `<table>_<columns>_key`, `<table>_<columns>_idx` or `<table>_<columns>_fkey`, cut to 63 bytes before the
 * suffix as Prisma's `ConstraintNames` does.
 *
 * @see https://www.prisma.io/docs/orm/prisma-schema/data-model/database-mapping#prisma-orms-default-naming-conventions-for-indexes-and-constraints
 */
export function prismaConstraintName(
  table: string,
  columns: readonly string[],
  suffix: 'pkey' | 'key' | 'idx' | 'fkey',
): string {
  const base = suffix === 'pkey' ? table : `${table}_${columns.join('_')}`;
  return `${truncateBytes(base, MAX_IDENTIFIER_BYTES - suffix.length - 1)}_${suffix}`;
}

function truncateBytes(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text) <= maxBytes) return text;
  let out = '';
  for (const char of text) {
    if (Buffer.byteLength(out + char) > maxBytes) break;
    out += char;
  }
  return out;
}

/** Orders described objects by name, by code unit so the order is the same on every machine. */
export function byName<T extends { name: string }>(items: readonly T[]): T[] {
  return [...items].sort((x, y) => compareText(x.name, y.name));
}

export function compareText(x: string, y: string): number {
  return x < y ? -1 : x > y ? 1 : 0;
}
