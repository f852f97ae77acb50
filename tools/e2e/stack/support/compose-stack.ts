import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);
/** The compose project name the global setup (stack/compose.js) brings the stack up under. */
const PROJECT = 'portcullis-e2e';

/** The compose stack's public face: what `docker/compose.yaml` publishes on the host's loopback. */
export const STACK = {
  issuer: 'http://localhost:4000',
  resource: 'http://localhost:4100/mcp',
  proxy: 'http://localhost:4200',
  user: { username: 'demo', password: 'demo' },
  apps: {
    'authorization-server': 'http://localhost:4000',
    'protected-server': 'http://localhost:4100',
    proxy: 'http://localhost:4200',
  },
} as const;

export type Service = 'postgres' | 'redis' | 'authorization-server' | 'protected-server' | 'proxy';
export type AppService = keyof typeof STACK.apps;

function containerOf(service: Service): string {
  return `${PROJECT}-${service}-1`;
}

/** Runs the docker CLI against the engine the suite uses (DOCKER_HOST), failing with its standard error. */
export async function docker(...args: string[]): Promise<string> {
  const { stdout } = await run('docker', args, { timeout: 120_000 });
  return stdout.trim();
}

export async function stopService(service: Service): Promise<void> {
  await docker('stop', '--time', '10', containerOf(service));
}

export async function startService(service: Service): Promise<void> {
  await docker('start', containerOf(service));
}

export async function restartService(service: Service): Promise<void> {
  await docker('restart', '--time', '10', containerOf(service));
}

/** The container's health as Docker sees it (`starting`, `healthy`, `unhealthy`), or its state when not running. */
export async function health(service: Service): Promise<string> {
  const state = await docker(
    'inspect',
    '--format',
    '{{.State.Status}} {{if .State.Health}}{{.State.Health.Status}}{{end}}',
    containerOf(service),
  );
  const [status, healthStatus] = state.split(' ');
  return status === 'running' ? (healthStatus ?? 'running') : (status ?? 'unknown');
}

/** Waits until Docker reports the service healthy; the deadline is a requirement, not a measurement. */
export async function waitHealthy(service: Service, withinMs = 90_000): Promise<void> {
  const deadline = Date.now() + withinMs;
  let last = '';
  while (Date.now() < deadline) {
    last = await health(service);
    if (last === 'healthy') return;
    await sleep(250);
  }
  throw new Error(`${service} not healthy within ${withinMs} ms (last: ${last})`);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A connection to one app's database in the stack's PostgreSQL, for asserting what was (not) written. */
export async function withAppDatabase<T>(
  database: 'authorization_server' | 'protected_server' | 'proxy',
  fn: (client: pg.Client) => Promise<T>,
): Promise<T> {
  const client = new pg.Client({
    connectionString: `postgresql://postgres:portcullis@127.0.0.1:5433/${database}`,
  });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** HTTP status of a GET, or 0 when nothing answered. */
export async function statusOf(url: string): Promise<number> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return 0;
  }
}
