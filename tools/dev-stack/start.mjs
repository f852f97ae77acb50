#!/usr/bin/env node
// `npm start`: builds the apps, runs the stack (apps.mjs) on its embedded defaults with concurrently, prints their
// URLs once each answers /healthz, and stops them all on Ctrl-C (exit 0 when every app shut down cleanly).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import concurrently from 'concurrently';
import pg from 'pg';
import { APPS } from './apps.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));

function build() {
  if (process.env.PORTCULLIS_SKIP_BUILD === '1') return;
  const projects = [...new Set(APPS.map((app) => app.app))].join(',');
  const result = spawnSync(
    process.execPath,
    [
      'node_modules/nx/dist/bin/nx.js',
      'run-many',
      '-t',
      'build',
      '-p',
      projects,
      '--outputStyle=dynamic-legacy',
    ],
    { cwd: root, stdio: 'inherit', env: { ...process.env, NX_DAEMON: process.env.NX_DAEMON ?? 'false' } },
  );
  if (result.status !== 0) process.exit(result.status ?? 1);
}

async function waitForHealth(url, deadline) {
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`${url}/healthz`)).ok) return true;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return false;
}

/**
 * With `DATABASE_URL` set, each app gets a database of its own on that server, named after it
 * (`<database>_authorization_server`, ...) and made when missing: an app's database holds its own tables alone, and a
 * database another app already holds is refused at boot.
 */
async function databasesOnServer(url) {
  if (!url) return new Map();
  const base = new URL(url);
  const prefix = decodeURIComponent(base.pathname.slice(1)) || 'portcullis';
  const urls = new Map();
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    for (const app of APPS) {
      const name = `${prefix}_${app.name.replace(/-/g, '_')}`;
      const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
      if (rowCount === 0) await admin.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
      const own = new URL(base);
      own.pathname = `/${encodeURIComponent(name)}`;
      urls.set(app.name, own.href);
    }
  } finally {
    await admin.end();
  }
  return urls;
}

build();
const databases = await databasesOnServer(process.env.DATABASE_URL);
const { commands, result } = concurrently(
  APPS.map((app) => ({
    name: app.name,
    // `exec` replaces the shell concurrently starts, so the signal and the exit status are the app's own.
    command: `exec node apps/${app.app}/dist/main.js`,
    prefixColor: app.color,
    env: {
      PORT: String(app.port),
      ...app.env,
      ...(databases.has(app.name) ? { DATABASE_URL: databases.get(app.name) } : {}),
    },
  })),
  { cwd: root, killOthersOn: ['failure'], prefix: 'name', handleInput: false },
);

const deadline = Date.now() + 60_000;
Promise.all(APPS.map((app) => waitForHealth(`http://localhost:${app.port}`, deadline))).then((healthy) => {
  if (healthy.every(Boolean)) {
    const lines = APPS.map((app) => `  ${app.name.padEnd(22)} http://localhost:${app.port}`);
    process.stdout.write(`\nPortcullis is up:\n${lines.join('\n')}\nPress Ctrl-C to stop.\n\n`);
  } else {
    const down = APPS.filter((_, index) => !healthy[index]).map((app) => app.name);
    process.stderr.write(`\nNot healthy after 60 s: ${down.join(', ')}\n`);
  }
});

// Ctrl-C reaches this process too; stay alive until the apps have drained, so the status reports them.
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => undefined);

// Ctrl-C reaches every process in the group; concurrently also forwards SIGINT/SIGTERM to the apps, which
// drain and exit 0. The stack's exit status is 0 only if all of them did.
result.then(
  () => process.exit(0),
  (events) => {
    const failed = events
      .filter((event) => event.exitCode !== 0)
      .map((event) => `${event.command.name} (${event.exitCode})`);
    process.stderr.write(`Stopped with errors: ${failed.join(', ')}\n`);
    process.exit(1);
  },
);
void commands;
