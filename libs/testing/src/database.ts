import { randomBytes } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { openDatabase, type Database, type DatabaseTarget } from '@portcullis/persistence';
import { CONTAINER_POSTGRES_URL, describeHarness } from './runtime.js';

/** How the harness got its database, in the order it tries them. */
export type TestDatabaseKind = 'postgresql' | 'testcontainers' | 'embedded';

export interface TestDatabase {
  readonly kind: TestDatabaseKind;
  /** A `postgresql://` URL of this test's own database (absent for embedded). */
  readonly url?: string;
  /** What to hand an app or `openDatabase` so they use this database. */
  readonly target: DatabaseTarget;
  /** The harness's own connection, for arranging data and asserting on what was (not) persisted. */
  readonly database: Database;
  stop(): Promise<void>;
}

export interface StartDatabaseOptions {
  /** Apply the shipped migrations (default true); false gives an empty database for migrator tests. */
  migrate?: boolean;
}

/**
 * A fresh database for one test file, dropped by `stop()`. Order: `TEST_DATABASE_URL` -> a new database on that
 * server; else the run's Testcontainers PostgreSQL (started by the Jest global setup, `libs/testing/jest`) -> a new
 * database on it; else embedded PGlite in memory. It says which on standard error.
 */
export async function startDatabase(options: StartDatabaseOptions = {}): Promise<TestDatabase> {
  const migrate = options.migrate ?? true;
  const serverUrl = process.env['TEST_DATABASE_URL'];
  if (serverUrl) return startOnServer(serverUrl, migrate, 'postgresql');
  const containerUrl = process.env[CONTAINER_POSTGRES_URL];
  if (containerUrl) return startOnServer(containerUrl, migrate, 'testcontainers');
  return startEmbedded(migrate);
}

/** Whether test files get PostgreSQL (a server or the run's container) rather than embedded PGlite. */
export function postgresServerAvailable(): boolean {
  return Boolean(process.env['TEST_DATABASE_URL'] || process.env[CONTAINER_POSTGRES_URL]);
}

async function startOnServer(
  serverUrl: string,
  migrate: boolean,
  kind: 'postgresql' | 'testcontainers',
): Promise<TestDatabase> {
  const name = `portcullis_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  await withAdminClient(serverUrl, (admin) => admin.query(`CREATE DATABASE "${name}"`));
  const url = withDatabaseName(serverUrl, name);
  const database = await openDatabase({ url }, { migrate, poolSize: 4 });
  const server = new URL(serverUrl);
  describeHarness(
    kind === 'postgresql'
      ? `database: PostgreSQL from TEST_DATABASE_URL, fresh database ${name}`
      : `database: Testcontainers PostgreSQL at ${server.hostname}:${server.port}, fresh database ${name}`,
  );
  return {
    kind,
    url,
    target: { url },
    database,
    stop: async () => {
      await database.close();
      await withAdminClient(serverUrl, (admin) =>
        admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`),
      );
    },
  };
}

async function startEmbedded(migrate: boolean): Promise<TestDatabase> {
  const pglite = await PGlite.create();
  const target = { pglite };
  const database = await openDatabase(target, { migrate });
  describeHarness(
    'database: embedded PGlite in memory (no container engine answered; set TEST_DATABASE_URL to use a PostgreSQL server)',
  );
  return {
    kind: 'embedded',
    target,
    database,
    stop: async () => {
      await database.close();
      await pglite.close();
    },
  };
}

async function withAdminClient<T>(serverUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

function withDatabaseName(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
