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

/** The migrations shipped with this package (`prisma/migrations`, beside `src` and `dist`). */
export const MIGRATIONS_DIR = fileURLToPath(new URL('../../prisma/migrations', import.meta.url));

/** The checksum Prisma Migrate stores for a migration script: SHA-256 of its bytes, lowercase hex. */
export function migrationChecksum(script: string | Buffer): string {
  return createHash('sha256').update(script).digest('hex');
}

/** Reads every migration folder under `dir`, in name order (the order Prisma applies them). */
export async function readMigrations(dir: string = MIGRATIONS_DIR): Promise<MigrationFile[]> {
  const entries = await readdir(dir, { withFileTypes: true });
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
