import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A migration folder in Prisma's format: `<timestamp>_<name>/migration.sql`. */
export interface MigrationFile {
  /** The folder name, which Prisma records as `migration_name`. */
  name: string;
  script: string;
  /** Lowercase hex SHA-256 of the script bytes, the checksum Prisma records. */
  checksum: string;
}

/**
 * The migrations shipped with this package (`prisma/migrations`, beside `src` and `dist`), one folder per set of
 * tables: `authorization` (users, clients, sessions, grants, tokens, keys, events: the authorization server's and the
 * proxy's), `notes` (the protected server's), `upstream` (the proxy's upstream identities, states and token vault),
 * and `own/<app>`, each app's own migrations (what moves a database that held every app's tables to its own).
 */
export const MIGRATIONS_DIR = fileURLToPath(new URL('../../prisma/migrations', import.meta.url));

/** The tables each shared set of migrations creates. */
export const MIGRATION_SET_TABLES = {
  authorization: [
    'users',
    'clients',
    'login_sessions',
    'pending_authorizations',
    'consents',
    'grants',
    'authorization_codes',
    'access_tokens',
    'refresh_tokens',
    'signing_keys',
    'used_jwt_ids',
    'security_events',
  ],
  notes: ['notes'],
  upstream: ['upstream_identities', 'upstream_states', 'upstream_tokens'],
} as const satisfies Record<string, readonly string[]>;

export type MigrationSet = keyof typeof MIGRATION_SET_TABLES;

/** Each app's database: the sets of tables it holds (its own and those it shares), and nothing else. */
export const APP_SCHEMAS = {
  'authorization-server': ['authorization'],
  proxy: ['authorization', 'upstream'],
  'protected-server': ['notes'],
} as const satisfies Record<string, readonly MigrationSet[]>;

/**
 * Whose tables a database holds: one app's (its {@link APP_SCHEMAS} sets and its own migrations), or `all` of the
 * shared sets (every table of the Prisma schema: a test database several kinds of code share).
 */
export type DatabaseSchema = keyof typeof APP_SCHEMAS | 'all';

export function isAppSchema(name: string): name is keyof typeof APP_SCHEMAS {
  return Object.hasOwn(APP_SCHEMAS, name);
}

/** The tables a database of `schema` holds. */
export function schemaTables(schema: DatabaseSchema): string[] {
  const sets: readonly MigrationSet[] =
    schema === 'all' ? (Object.keys(MIGRATION_SET_TABLES) as MigrationSet[]) : APP_SCHEMAS[schema];
  return sets.flatMap((set) => MIGRATION_SET_TABLES[set]);
}

/** The checksum Prisma Migrate stores for a migration script: SHA-256 of its bytes, lowercase hex. */
export function migrationChecksum(script: string | Buffer): string {
  return createHash('sha256').update(script).digest('hex');
}

/**
 * The migrations of a database of `schema`, in name order (timestamps: the order they were written, across sets):
 * its sets', and for one app its own (`own/<app>`); or those of the sets named, alone (what a tool that needs some
 * tables, and may run before the app ever did, applies without deciding whose database it is).
 */
export async function readMigrations(
  schema: DatabaseSchema | readonly MigrationSet[] = 'all',
): Promise<MigrationFile[]> {
  const folders =
    typeof schema !== 'string'
      ? [...schema]
      : schema === 'all'
        ? Object.keys(MIGRATION_SET_TABLES)
        : [...APP_SCHEMAS[schema], join('own', schema)];
  const sets = await Promise.all(folders.map((folder) => readMigrationFolder(join(MIGRATIONS_DIR, folder))));
  return sets.flat().sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Reads every migration folder under `dir`, in name order (the order Prisma applies them); none when it is absent. */
export async function readMigrationFolder(dir: string): Promise<MigrationFile[]> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const names = entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  return Promise.all(
    names.map(async (name) => {
      const bytes = await readFile(join(dir, name, 'migration.sql'));
      return { name, script: bytes.toString('utf8'), checksum: migrationChecksum(bytes) };
    }),
  );
}

/**
 * The other apps' own migrations, by name, with the app each is of: one of them applied to a database makes it that
 * app's, which another app must not migrate (its own migration would drop the first app's tables).
 */
export async function otherAppsMigrations(
  app: keyof typeof APP_SCHEMAS,
): Promise<ReadonlyMap<string, string>> {
  const owners = new Map<string, string>();
  for (const other of Object.keys(APP_SCHEMAS)) {
    if (other === app) continue;
    for (const migration of await readMigrationFolder(join(MIGRATIONS_DIR, 'own', other))) {
      owners.set(migration.name, other);
    }
  }
  return owners;
}
