import { execFile } from 'node:child_process';
import { connect } from 'node:net';
import { promisify } from 'node:util';
import pg from 'pg';
import { sleep } from '../../ha/support/ha-stack.js';

const run = promisify(execFile);

/** What the global setup (upgrade/stack.js) tells the suite. */
export interface UpgradeState {
  readonly release: { version: string; commit: string; image: string; migrations: Record<string, string> };
  readonly previousImage: string;
  readonly newImage: string;
  readonly project: string;
  readonly composeFile: string;
  readonly composeVariables: Record<string, string>;
  readonly seconds: { previousImage: number | null; newImage: number; up: number };
}

export function upgradeState(): UpgradeState {
  const state = process.env['PORTCULLIS_UPGRADE_E2E'];
  if (!state) throw new Error('the upgrade stack is not up: run the suite with jest.upgrade.config.js');
  return JSON.parse(state) as UpgradeState;
}

/** The stack's public face (HAProxy) and each instance, as docker/upgrade/compose.yaml publishes them. */
export const STACK = {
  issuer: 'http://localhost:4700',
  resource: 'http://localhost:4800/mcp',
  proxy: 'http://localhost:4900',
  instances: {
    'as-1': 'http://localhost:4701',
    'as-2': 'http://localhost:4702',
    'ps-1': 'http://localhost:4801',
    'ps-2': 'http://localhost:4802',
    'proxy-1': 'http://localhost:4901',
    'proxy-2': 'http://localhost:4902',
  },
  databaseUrl: (database: AppDatabase) =>
    `postgresql://postgres:portcullis-upgrade@127.0.0.1:5450/${database}`,
} as const;

export type Instance = keyof typeof STACK.instances;
export type AppDatabase = 'authorization_server' | 'protected_server' | 'proxy';

/** HAProxy's backend of an instance (docker/upgrade/haproxy.cfg). */
const backendOf = (instance: Instance) => instance.slice(0, instance.indexOf('-'));

export function containerOf(instance: string, state: UpgradeState): string {
  return `${state.project}-${instance}-1`;
}

export async function docker(...args: string[]): Promise<string> {
  const { stdout } = await run('docker', args, { timeout: 180_000, maxBuffer: 64 * 1024 * 1024 });
  return stdout.trim();
}

/**
 * The authorization server's admin command line of the image `instance` runs, in its container, against its own
 * database or the one `databaseUrl` names (the proxy's: its clients and users are kept by the same command).
 */
export async function admin(
  state: UpgradeState,
  instance: Instance,
  args: string[],
  databaseUrl?: string,
): Promise<string> {
  return docker(
    'exec',
    ...(databaseUrl ? ['-e', `DATABASE_URL=${databaseUrl}`] : []),
    containerOf(instance, state),
    'node',
    'apps/authorization-server/bin/portcullis-admin.js',
    ...args,
  );
}

/**
 * One command of HAProxy's runtime API (docker/upgrade/haproxy.cfg: 9405, admin level), its answer.
 * @see https://docs.haproxy.org/2.6/management.html#9.3
 */
export function haproxy(command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port: 9405 });
    let answer = '';
    socket.setTimeout(5_000, () => socket.destroy(new Error(`HAProxy did not answer ${command}`)));
    socket.on('connect', () => socket.write(`${command}\n`));
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('error', reject);
    socket.on('close', () => resolve(answer.trim()));
  });
}

/** HAProxy's view of each server and frontend (`show stat`), by `<proxy>/<server>`: its fields by column name. */
export async function haproxyStats(): Promise<Record<string, Record<string, string>>> {
  const [header, ...lines] = (await haproxy('show stat')).split('\n');
  const columns = (header ?? '').replace(/^# /, '').split(',');
  const stats: Record<string, Record<string, string>> = {};
  for (const line of lines) {
    const fields = line.split(',');
    if (fields.length < 2) continue;
    stats[`${fields[0]}/${fields[1]}`] = Object.fromEntries(
      columns.map((name, i) => [name, fields[i] ?? '']),
    );
  }
  return stats;
}

async function serverStat(instance: Instance): Promise<{ status: string; sessions: number }> {
  const stat = (await haproxyStats())[`${backendOf(instance)}/${instance}`];
  return { status: stat?.['status'] ?? 'unknown', sessions: Number(stat?.['scur'] ?? 0) };
}

async function until(condition: () => Promise<boolean>, withinMs: number, what: string): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < withinMs) {
    if (await condition().catch(() => false)) return Date.now() - started;
    await sleep(50);
  }
  throw new Error(`${what}: not within ${withinMs} ms`);
}

/** How an instance left rotation: the time until it held no request, or what it still held after 30 s. */
export interface TakenOut {
  readonly ms: number;
  /** Requests it still held when the wait ended (none once drained): its SIGTERM drain answers them. */
  readonly sessionsLeft: number;
}

/**
 * Takes an instance out of rotation before it stops: HAProxy sends it nothing new (maintenance), and the requests it
 * holds are answered (its sessions down to none, waited for up to 30 s).
 */
export async function takeOut(instance: Instance): Promise<TakenOut> {
  const started = Date.now();
  await haproxy(`set server ${backendOf(instance)}/${instance} state maint`);
  let sessionsLeft = (await serverStat(instance)).sessions;
  while (sessionsLeft > 0 && Date.now() - started < 30_000) {
    await sleep(50);
    sessionsLeft = (await serverStat(instance)).sessions;
  }
  return { ms: Date.now() - started, sessionsLeft };
}

/** Puts an instance back in rotation and waits until HAProxy's checks have it UP. The time that took. */
export async function putBack(instance: Instance): Promise<number> {
  const started = Date.now();
  await haproxy(`set server ${backendOf(instance)}/${instance} state ready`);
  await until(async () => (await serverStat(instance)).status === 'UP', 30_000, `${instance} UP in HAProxy`);
  return Date.now() - started;
}

/** Each step of one instance's replacement, in milliseconds, and how the replaced process ended. */
export interface Replacement {
  readonly instance: Instance;
  readonly image: string;
  readonly startedAt: number;
  readonly drainMs: number;
  /** Requests it still held once the drain wait ended (0: drained). */
  readonly sessionsLeft: number;
  /** SIGTERM to exit of the instance replaced. */
  readonly stopMs: number;
  /** Its exit code: 0 once it answered what it held and closed (the apps' SIGTERM drain). */
  readonly exitCode: number;
  /** Container created to /readyz answering 200 (migrations applied, database reachable). */
  readonly bootMs: number;
  readonly backInMs: number;
  readonly totalMs: number;
}

/**
 * Replaces one instance with `image`, the way a rolling upgrade does: out of rotation (drained), SIGTERM (the app
 * answers what it holds and exits), a new container on the new image (migrating at boot when it is the first of its
 * release), ready, back in rotation.
 */
export async function replace(state: UpgradeState, instance: Instance, image: string): Promise<Replacement> {
  const startedAt = Date.now();
  const { ms: drainMs, sessionsLeft } = await takeOut(instance);
  const container = containerOf(instance, state);
  const stopping = Date.now();
  await docker('stop', '--time', '15', container);
  const stopMs = Date.now() - stopping;
  const exitCode = Number(await docker('inspect', '--format', '{{.State.ExitCode}}', container));
  const booting = Date.now();
  const variable = `${instance.toUpperCase().replace('-', '_')}_IMAGE`;
  state.composeVariables[variable] = image;
  await run(
    'docker',
    [
      'compose',
      '-p',
      state.project,
      '-f',
      state.composeFile,
      'up',
      '-d',
      '--no-deps',
      '--no-build',
      instance,
    ],
    { env: { ...process.env, ...state.composeVariables }, timeout: 120_000 },
  );
  await until(
    async () =>
      (await fetch(`${STACK.instances[instance]}/readyz`, { signal: AbortSignal.timeout(1_000) })).ok,
    180_000,
    `${instance} ready on ${image}`,
  );
  const bootMs = Date.now() - booting;
  const backInMs = await putBack(instance);
  return {
    instance,
    image,
    startedAt,
    drainMs,
    sessionsLeft,
    stopMs,
    exitCode,
    bootMs,
    backInMs,
    totalMs: Date.now() - startedAt,
  };
}

/** The image a running instance's container was created from (`portcullis:0.1.0`). */
export async function imageOf(state: UpgradeState, instance: Instance): Promise<string> {
  return docker('inspect', '--format', '{{.Config.Image}}', containerOf(instance, state));
}

export async function withDatabase<T>(
  database: AppDatabase,
  fn: (client: pg.Client) => Promise<T>,
): Promise<T> {
  const client = new pg.Client({ connectionString: STACK.databaseUrl(database) });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** The migrations a database has applied, by name, with when each finished. */
export async function appliedMigrations(database: AppDatabase): Promise<Map<string, Date>> {
  return withDatabase(database, async (db) => {
    const { rows } = await db.query<{ migration_name: string; finished_at: Date }>(
      `SELECT migration_name, finished_at FROM "_prisma_migrations"
        WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
    );
    return new Map(rows.map((row) => [row.migration_name, row.finished_at]));
  });
}
