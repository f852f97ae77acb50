import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readMigrations, schemaTables } from '@portcullis/persistence';
import {
  postgresServerAvailable,
  startDatabase,
  spawnApp,
  type SpawnedApp,
  type TestDatabase,
} from '@portcullis/testing';

// What only a real process shows: startup errors, signals, crashes and replicas. Runs the built app.
const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));

const apps: SpawnedApp[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.stop()));
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function start(env: Record<string, string>): SpawnedApp {
  const app = spawnApp(MAIN, env);
  apps.push(app);
  return app;
}

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'portcullis-as-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function status(url: string): Promise<number> {
  return (await fetch(url)).status;
}

describe('configuration errors', () => {
  it.each([
    ['PORT', { PORT: 'abc' }, /^authorization-server: invalid configuration: PORT must be a number$/],
    [
      'PORT',
      { PORT: '70000' },
      /^authorization-server: invalid configuration: PORT must be from 0 to 65535$/,
    ],
    [
      'DATABASE_URL',
      { DATABASE_URL: 'mysql://db/x' },
      /^authorization-server: invalid configuration: DATABASE_URL must be a postgresql:\/\//,
    ],
    [
      'LOG_LEVEL',
      { LOG_LEVEL: 'loud' },
      /^authorization-server: invalid configuration: LOG_LEVEL must be one of/,
    ],
  ])('stops the boot with one line naming %s', async (_name, env, expected) => {
    const app = start(env);
    expect(await app.exited).toBe(1);
    const lines = app.stderr().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(expected);
    expect(app.stderr()).not.toMatch(/\n\s+at /);
  });

  it('stops the boot with one line naming DATABASE_URL when the server cannot be reached, without its password', async () => {
    const app = start({ DATABASE_URL: 'postgresql://portcullis:hunter2@127.0.0.1:1/portcullis' });
    expect(await app.exited).toBe(1);
    const lines = app.stderr().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^authorization-server: DATABASE_URL: cannot connect to postgresql:\/\/portcullis:\*\*\*@127\.0\.0\.1:1\/portcullis \(ECONNREFUSED\)$/,
    );
    expect(app.stderr() + app.stdout()).not.toContain('hunter2');
  });
});

describe('the embedded database', () => {
  // Each test boots PGlite in one or two processes (a recovery after SIGKILL replays its log): seconds alone, far
  // more on a machine busy with the other projects' suites.
  jest.setTimeout(120_000);

  it('serves health and readiness, then exits 0 on SIGTERM', async () => {
    const app = start({ PGLITE_DIR: await tempDir() });
    const url = await app.ready;
    expect(await status(`${url}/healthz`)).toBe(200);
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ok', database: 'ok' });
    const begin = Date.now();
    expect(await app.stop('SIGTERM')).toBe(0);
    expect(Date.now() - begin).toBeLessThan(10_000);
  });

  it('restarts after SIGKILL with its data and without re-applying migrations', async () => {
    const dir = await tempDir();
    const first = start({ PGLITE_DIR: dir });
    await first.ready;
    expect(first.stdout()).toContain('applied migration 20261121000000_init');
    expect(await first.stop('SIGKILL')).toBe('SIGKILL');

    const second = start({ PGLITE_DIR: dir });
    const url = await second.ready;
    expect(second.stdout()).toContain('was not closed cleanly');
    expect(second.stdout()).not.toContain('applied migration');
    expect(await status(`${url}/readyz`)).toBe(200);
    expect(await second.stop('SIGINT')).toBe(0);
  });

  it('refuses a second process on a directory a live process owns, naming PGLITE_DIR', async () => {
    const dir = await tempDir();
    const owner = start({ PGLITE_DIR: dir });
    await owner.ready;
    const intruder = start({ PGLITE_DIR: dir });
    expect(await intruder.exited).toBe(1);
    expect(intruder.stderr().trim()).toBe(
      `authorization-server: PGLITE_DIR: the embedded database at ${dir} is in use by process ${owner.process.pid}; stop it or set PGLITE_DIR`,
    );
    expect(await status(`${await owner.ready}/readyz`)).toBe(200);
  });
});

(postgresServerAvailable() ? describe : describe.skip)(
  "replicas on one PostgreSQL (a server or the run's container)",
  () => {
    it('two processes booting at once apply each of its migrations exactly once, to its own tables alone', async () => {
      const db: TestDatabase = await startDatabase({ migrate: false });
      cleanups.push(() => db.stop());
      const replicas = [start({ DATABASE_URL: db.url! }), start({ DATABASE_URL: db.url! })];
      const urls = await Promise.all(replicas.map((replica) => replica.ready));
      for (const url of urls) expect(await status(`${url}/readyz`)).toBe(200);
      const rows = await db.database.withSession((session) =>
        session.query<{ migration_name: string }>(`SELECT migration_name FROM "_prisma_migrations"`),
      );
      const shipped = (await readMigrations('authorization-server')).map((migration) => migration.name);
      expect(rows.map((row) => row.migration_name).sort()).toEqual(shipped);
      // Its database holds its own tables, and none of the other apps'.
      const tables = await db.database.withSession((session) =>
        session.query<{ name: string }>(
          `SELECT table_name AS name FROM information_schema.tables
            WHERE table_schema = 'public' AND table_name <> '_prisma_migrations'`,
        ),
      );
      expect(tables.map((row) => row.name).sort()).toEqual([...schemaTables('authorization-server')].sort());
      const appliedLines = replicas.map(
        (replica) => replica.stdout().match(/applied migration/g)?.length ?? 0,
      );
      expect(appliedLines.sort()).toEqual([0, shipped.length]);
    });
  },
);
