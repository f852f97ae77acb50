import { randomBytes } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { openDatabase, type Database, type DatabaseTarget } from '@portcullis/persistence';
import { containerRuntimeAvailable, describeHarness } from './runtime.js';

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
 * A fresh database for one test file. Order: `TEST_DATABASE_URL` -> a new database on that server, dropped by
 * `stop()`; else a reachable container runtime -> Testcontainers `postgres:16-alpine`; else embedded PGlite
 * in memory. It says which on standard error.
 */
export async function startDatabase(options: StartDatabaseOptions = {}): Promise<TestDatabase> {
  const migrate = options.migrate ?? true;
  const serverUrl = process.env['TEST_DATABASE_URL'];
  if (serverUrl) return startOnServer(serverUrl, migrate);
  if (await containerRuntimeAvailable()) return startInContainer(migrate);
  return startEmbedded(migrate);
}

async function startOnServer(serverUrl: string, migrate: boolean): Promise<TestDatabase> {
  const name = `portcullis_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  await withAdminClient(serverUrl, (admin) => admin.query(`CREATE DATABASE "${name}"`));
  const url = withDatabaseName(serverUrl, name);
  const database = await openDatabase({ url }, { migrate, poolSize: 4 });
  describeHarness(`database: PostgreSQL from TEST_DATABASE_URL, fresh database ${name}`);
  return {
    kind: 'postgresql',
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

async function startInContainer(migrate: boolean): Promise<TestDatabase> {
  const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
  const container = await new PostgreSqlContainer('postgres:16-alpine').start();
  const url = container.getConnectionUri();
  const database = await openDatabase({ url }, { migrate, poolSize: 4 });
  describeHarness(
    `database: Testcontainers postgres:16-alpine at ${container.getHost()}:${container.getPort()}`,
  );
  return {
    kind: 'testcontainers',
    url,
    target: { url },
    database,
    stop: async () => {
      await database.close();
      await container.stop();
    },
  };
}

async function startEmbedded(migrate: boolean): Promise<TestDatabase> {
  const pglite = await PGlite.create();
  const target = { pglite };
  const database = await openDatabase(target, { migrate });
  describeHarness('database: embedded PGlite in memory (set TEST_DATABASE_URL to use PostgreSQL)');
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
