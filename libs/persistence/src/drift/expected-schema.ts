import {
  byName,
  compareText,
  prismaConstraintName,
  type ColumnDescription,
  type EnumDescription,
  type ForeignKeyDescription,
  type IndexDescription,
  type KeyDescription,
  type ReferentialAction,
  type SchemaDescription,
  type TableDescription,
} from './schema-description.js';

/** The parts of Prisma's DMMF datamodel the drift check reads. */
interface DmmfDatamodel {
  models: DmmfModel[];
  enums: { name: string; dbName?: string | null; values: { name: string; dbName?: string | null }[] }[];
  indexes: DmmfIndex[];
}

interface DmmfModel {
  name: string;
  dbName: string | null;
  fields: DmmfField[];
}

interface DmmfField {
  name: string;
  dbName?: string | null;
  kind: 'scalar' | 'enum' | 'object' | 'unsupported';
  type: string;
  isList: boolean;
  isRequired: boolean;
  isId: boolean;
  hasDefaultValue: boolean;
  default?: DmmfDefault | DmmfDefault[];
  nativeType?: [string, string[]] | null;
  relationName?: string;
  relationFromFields?: string[];
  relationToFields?: string[];
  relationOnDelete?: string;
  relationOnUpdate?: string;
}

type DmmfDefault = string | number | boolean | { name: string; args: unknown[] };

interface DmmfIndex {
  model: string;
  type: 'id' | 'unique' | 'normal' | 'fulltext';
  dbName?: string | null;
  algorithm?: string;
  fields: { name: string; sortOrder?: 'asc' | 'desc' }[];
}

/** Prisma's PostgreSQL type for each scalar without `@db.*`. */
const SCALAR_TYPES: Record<string, string> = {
  String: 'text',
  Boolean: 'boolean',
  Int: 'integer',
  BigInt: 'bigint',
  Float: 'double precision',
  Decimal: 'numeric(65,30)',
  DateTime: 'timestamp(3) without time zone',
  Json: 'jsonb',
  Bytes: 'bytea',
};

/** `@db.*` attributes whose PostgreSQL type takes no modifier. */
const PLAIN_NATIVE_TYPES: Record<string, string> = {
  Text: 'text',
  Uuid: 'uuid',
  Xml: 'xml',
  Inet: 'inet',
  Citext: 'citext',
  Boolean: 'boolean',
  Integer: 'integer',
  SmallInt: 'smallint',
  BigInt: 'bigint',
  Oid: 'oid',
  DoublePrecision: 'double precision',
  Real: 'real',
  Money: 'money',
  Date: 'date',
  Json: 'json',
  JsonB: 'jsonb',
  ByteA: 'bytea',
};

const ACTIONS: Record<string, ReferentialAction> = {
  Cascade: 'CASCADE',
  Restrict: 'RESTRICT',
  NoAction: 'NO ACTION',
  SetNull: 'SET NULL',
  SetDefault: 'SET DEFAULT',
};

/** Defaults Prisma Client fills in itself; the column has no database default. */
const CLIENT_SIDE_DEFAULTS = new Set(['uuid', 'cuid', 'nanoid', 'ulid']);

/**
 * What Prisma Migrate would create in PostgreSQL for `schemaText`: tables, columns with their types,
 * nullability and database defaults, primary keys, indexes, foreign keys (also of implicit many-to-many
 * tables) and enums, named by Prisma's conventions unless the schema maps them. Fields of `Unsupported(...)`
 * types are not in Prisma's datamodel and so not described.
 *
 * The Prisma schema parser is loaded on first use: it is a 3 MB WebAssembly module that apps importing this
 * library at boot have no use for.
 *
 * @throws Error naming Prisma's validation messages when the schema is invalid.
 * @see https://www.prisma.io/docs/orm/reference/prisma-schema-reference#model-field-scalar-types
 */
export async function expectedSchemaFromPrisma(schemaText: string): Promise<SchemaDescription> {
  const { default: wasm } = await import('@prisma/prisma-schema-wasm');
  let dmmf: { datamodel: DmmfDatamodel };
  try {
    dmmf = JSON.parse(wasm.get_dmmf(JSON.stringify({ prismaSchema: [['schema.prisma', schemaText]] })));
  } catch (error) {
    throw new Error(`schema.prisma is invalid: ${prismaErrorText(error)}`, { cause: error });
  }
  return describeDatamodel(dmmf.datamodel, schemaText);
}

/** Database names of the datamodel's models and fields, `@@map` and `@map` applied. */
interface Names {
  table(model: string): string;
  column(model: string, field: string): string;
}

function describeDatamodel(datamodel: DmmfDatamodel, schemaText: string): SchemaDescription {
  const models = new Map(datamodel.models.map((model) => [model.name, model]));
  const enums = new Map(datamodel.enums.map((e) => [e.name, e]));
  const names: Names = {
    table: (model) => models.get(model)?.dbName ?? model,
    column: (model, field) =>
      models.get(model)?.fields.find((candidate) => candidate.name === field)?.dbName ?? field,
  };
  // With relationMode = "prisma" the relations live in Prisma Client only: no foreign keys are created.
  const foreignKeysEnforced = !/datasource\s+\w+\s*\{[^}]*relationMode\s*=\s*"prisma"/.test(schemaText);

  const tables: TableDescription[] = datamodel.models.map((model) => ({
    name: names.table(model.name),
    columns: model.fields
      .filter((field) => field.kind === 'scalar' || field.kind === 'enum')
      .map((field) => describeColumn(field, enums)),
    ...describeIndexes(model, datamodel.indexes, names),
    foreignKeys: foreignKeysEnforced ? describeForeignKeys(model, names, schemaText) : [],
  }));
  tables.push(...implicitManyToManyTables(datamodel.models, names, foreignKeysEnforced));

  const enumDescriptions: EnumDescription[] = datamodel.enums.map((e) => ({
    name: e.dbName ?? e.name,
    values: e.values.map((value) => value.dbName ?? value.name),
  }));
  return { tables: byName(tables), enums: byName(enumDescriptions) };
}

function describeIndexes(
  model: DmmfModel,
  indexes: DmmfIndex[],
  names: Names,
): Pick<TableDescription, 'primaryKey' | 'indexes'> {
  const table = names.table(model.name);
  let primaryKey: KeyDescription | null = null;
  const described: IndexDescription[] = [];
  for (const index of indexes.filter((candidate) => candidate.model === model.name)) {
    const columns = index.fields.map((field) => names.column(model.name, field.name));
    if (index.type === 'id') {
      primaryKey = { name: index.dbName ?? prismaConstraintName(table, columns, 'pkey'), columns };
    } else if (index.type === 'unique' || index.type === 'normal') {
      const unique = index.type === 'unique';
      described.push({
        name: index.dbName ?? prismaConstraintName(table, columns, unique ? 'key' : 'idx'),
        columns: columns.map((name, i) => (index.fields[i]?.sortOrder === 'desc' ? `${name} DESC` : name)),
        unique,
        method: (index.algorithm ?? 'BTree').toLowerCase(),
      });
    }
  }
  return { primaryKey, indexes: byName(described) };
}

/**
 * The foreign keys of the relation fields that hold `fields:`, with Prisma's default actions where the schema
 * names none: `onDelete` Restrict for a required relation and SetNull for an optional one, `onUpdate` Cascade.
 *
 * @see https://www.prisma.io/docs/orm/prisma-schema/data-model/relations/referential-actions#referential-action-defaults
 */
function describeForeignKeys(model: DmmfModel, names: Names, schemaText: string): ForeignKeyDescription[] {
  const table = names.table(model.name);
  const foreignKeys: ForeignKeyDescription[] = [];
  for (const field of model.fields) {
    if (field.kind !== 'object' || !field.relationFromFields?.length) continue;
    const columns = field.relationFromFields.map((name) => names.column(model.name, name));
    foreignKeys.push({
      name:
        relationMapName(schemaText, model.name, field.name) ?? prismaConstraintName(table, columns, 'fkey'),
      columns,
      referencedTable: names.table(field.type),
      referencedColumns: (field.relationToFields ?? []).map((name) => names.column(field.type, name)),
      onDelete: ACTIONS[field.relationOnDelete ?? (field.isRequired ? 'Restrict' : 'SetNull')] ?? 'NO ACTION',
      onUpdate: ACTIONS[field.relationOnUpdate ?? 'Cascade'] ?? 'NO ACTION',
    });
  }
  return byName(foreignKeys);
}

function describeColumn(
  field: DmmfField,
  enums: Map<string, DmmfDatamodel['enums'][number]>,
): ColumnDescription {
  const enumType = field.kind === 'enum' ? enums.get(field.type) : undefined;
  const elementType = enumType ? (enumType.dbName ?? enumType.name) : columnType(field);
  const enumValue = (name: string): string =>
    enumType?.values.find((value) => value.name === name)?.dbName ?? name;
  return {
    name: field.dbName ?? field.name,
    type: field.isList ? `${elementType}[]` : elementType,
    // Prisma creates scalar lists without NOT NULL whatever the field says.
    nullable: field.isList || !field.isRequired,
    default: databaseDefault(field, enumValue),
  };
}

function columnType(field: { type: string; nativeType?: [string, string[]] | null }): string {
  if (!field.nativeType) return SCALAR_TYPES[field.type] ?? field.type;
  const [name, args] = field.nativeType;
  const [first, second] = args;
  const plain = PLAIN_NATIVE_TYPES[name];
  if (plain) return plain;
  switch (name) {
    case 'Char':
      return `character(${first ?? 1})`;
    case 'VarChar':
      return first ? `character varying(${first})` : 'character varying';
    case 'Bit':
      return `bit(${first ?? 1})`;
    case 'VarBit':
      return first ? `bit varying(${first})` : 'bit varying';
    case 'Decimal':
      return first ? `numeric(${first},${second ?? 0})` : 'numeric';
    case 'Timestamp':
      return `timestamp(${first ?? 6}) without time zone`;
    case 'Timestamptz':
      return `timestamp(${first ?? 6}) with time zone`;
    case 'Time':
      return `time(${first ?? 6}) without time zone`;
    case 'Timetz':
      return `time(${first ?? 6}) with time zone`;
    default:
      return name.toLowerCase();
  }
}

/** The column default Prisma Migrate writes, as SQL; null when Prisma Client supplies the value instead. */
function databaseDefault(field: DmmfField, enumValue: (name: string) => string): string | null {
  const value = field.default;
  if (!field.hasDefaultValue || value === undefined) return null;
  if (Array.isArray(value))
    return `ARRAY[${value.map((item) => literal(field, item, enumValue)).join(', ')}]`;
  if (typeof value !== 'object') return literal(field, value, enumValue);
  switch (value.name) {
    case 'now':
      return 'CURRENT_TIMESTAMP';
    case 'autoincrement':
      return 'autoincrement()';
    case 'dbgenerated':
      return typeof value.args[0] === 'string' ? value.args[0] : 'dbgenerated()';
    default:
      if (CLIENT_SIDE_DEFAULTS.has(value.name)) return null;
      return `${value.name}()`;
  }
}

function literal(field: DmmfField, value: DmmfDefault, enumValue: (name: string) => string): string {
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value !== 'string') return `${value.name}()`;
  if (field.kind === 'enum') return quote(enumValue(value));
  if (field.type === 'Bytes') return quote(`\\x${Buffer.from(value, 'base64').toString('hex')}`);
  if (['Int', 'BigInt', 'Float', 'Decimal'].includes(field.type)) return value;
  return quote(value);
}

function quote(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/**
 * Join tables of implicit many-to-many relations (both sides lists, no `fields:`): `_<relation>` with `A`
 * referencing the model whose name sorts first and `B` the other, as Prisma Migrate creates them.
 *
 * @see https://www.prisma.io/docs/orm/prisma-schema/data-model/relations/many-to-many-relations#conventions-for-relation-tables-in-implicit-m-n-relations
 */
function implicitManyToManyTables(
  models: DmmfModel[],
  names: Names,
  foreignKeysEnforced: boolean,
): TableDescription[] {
  const sides = new Map<string, { model: DmmfModel; field: DmmfField }[]>();
  for (const model of models) {
    for (const field of model.fields) {
      if (field.kind !== 'object' || !field.relationName) continue;
      sides.set(field.relationName, [...(sides.get(field.relationName) ?? []), { model, field }]);
    }
  }
  const tables: TableDescription[] = [];
  for (const [relation, pair] of sides) {
    if (pair.length !== 2 || !pair.every(({ field }) => field.isList)) continue;
    const table = `_${relation}`;
    const [first, second] = pair.map(({ model }) => model).sort((x, y) => compareText(x.name, y.name));
    const ends = [
      { column: 'A', model: first },
      { column: 'B', model: second },
    ].map(({ column, model }) => {
      const id = model?.fields.find((field) => field.isId);
      return {
        column,
        model: model?.name ?? '',
        id: id ? { name: id.dbName ?? id.name, type: columnType(id) } : undefined,
      };
    });
    tables.push({
      name: table,
      columns: ends.map(({ column, id }) => ({
        name: column,
        type: id?.type ?? 'text',
        nullable: false,
        default: null,
      })),
      primaryKey: { name: `${table}_AB_pkey`, columns: ['A', 'B'] },
      indexes: [{ name: `${table}_B_index`, columns: ['B'], unique: false, method: 'btree' }],
      foreignKeys: foreignKeysEnforced
        ? ends.map(({ column, model, id }) => ({
            name: prismaConstraintName(table, [column], 'fkey'),
            columns: [column],
            referencedTable: names.table(model),
            referencedColumns: [id?.name ?? 'id'],
            onDelete: 'CASCADE' as const,
            onUpdate: 'CASCADE' as const,
          }))
        : [],
    });
  }
  return tables;
}

/** A `map:` on the relation field's `@relation(...)`, which Prisma's datamodel does not carry. */
function relationMapName(schemaText: string, modelName: string, fieldName: string): string | undefined {
  const block = new RegExp(`^model\\s+${modelName}\\s*\\{([\\s\\S]*?)^\\}`, 'm').exec(schemaText)?.[1];
  const line = block?.split('\n').find((candidate) => new RegExp(`^\\s*${fieldName}\\s`).test(candidate));
  return line ? /@relation\([^)]*\bmap:\s*"([^"]+)"/.exec(line)?.[1] : undefined;
}

function prismaErrorText(error: unknown): string {
  const raw = error instanceof Error ? error.message : String(error);
  let message = raw;
  try {
    message = (JSON.parse(raw) as { message?: string }).message ?? raw;
  } catch {
    // not Prisma's JSON error envelope; keep the text as it is
  }
  // eslint-disable-next-line no-control-regex
  return message.replace(/\u001b\[[0-9;]*m/g, '');
}
