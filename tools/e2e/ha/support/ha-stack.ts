import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import pg from 'pg';

const run = promisify(execFile);
/** The compose project name the global setup (ha/compose.js) brings the stack up under. */
const PROJECT = 'portcullis-ha-e2e';

/** The HA stack's public face and its parts, as docker/ha/compose.yaml publishes them on the host's loopback. */
export const HA = {
  issuer: 'http://localhost:4400',
  resource: 'http://localhost:4500/mcp',
  protectedServer: 'http://localhost:4500',
  proxy: 'http://localhost:4600',
  instances: {
    'as-1': 'http://127.0.0.1:4401',
    'as-2': 'http://127.0.0.1:4402',
    'ps-1': 'http://127.0.0.1:4501',
    'ps-2': 'http://127.0.0.1:4502',
    'proxy-1': 'http://127.0.0.1:4601',
    'proxy-2': 'http://127.0.0.1:4602',
  },
  /** Each PostgreSQL node's Patroni REST API. */
  patroni: { 'pg-1': 'http://127.0.0.1:8441', 'pg-2': 'http://127.0.0.1:8442' },
  redis: { 'redis-1': 6441, 'redis-2': 6442 },
  sentinels: [26441, 26442, 26443],
  masterName: 'portcullis',
  databasePassword: 'portcullis-ha',
} as const;

export type PostgresNode = keyof typeof HA.patroni;
export type RedisNode = keyof typeof HA.redis;
export type AppInstance = keyof typeof HA.instances;

export function containerOf(service: string): string {
  return `${PROJECT}-${service}-1`;
}

/** Runs the docker CLI against the engine the suite uses (DOCKER_HOST), failing with its standard error. */
export async function docker(...args: string[]): Promise<string> {
  const { stdout } = await run('docker', args, { timeout: 120_000 });
  return stdout.trim();
}

/** SIGKILL, as a crash or a lost machine: nothing is handed over. */
export async function kill(service: string): Promise<void> {
  await docker('kill', containerOf(service));
}

export async function start(service: string): Promise<void> {
  await docker('start', containerOf(service));
}

/** The container's health as Docker sees it (`starting`, `healthy`, `unhealthy`), or its state when not running. */
export async function health(service: string): Promise<string> {
  const state = await docker(
    'inspect',
    '--format',
    '{{.State.Status}} {{if .State.Health}}{{.State.Health.Status}}{{end}}',
    containerOf(service),
  );
  const [status, healthStatus] = state.split(' ');
  return status === 'running' ? (healthStatus ?? 'running') : (status ?? 'unknown');
}

export async function waitHealthy(service: string, withinMs = 120_000): Promise<number> {
  const started = Date.now();
  let last = '';
  while (Date.now() - started < withinMs) {
    last = await health(service);
    if (last === 'healthy') return Date.now() - started;
    await sleep(250);
  }
  throw new Error(`${service} not healthy within ${withinMs} ms (last: ${last})`);
}

/** The authorization server's admin command line, in the first instance's container (its own configuration). */
export async function admin(...args: string[]): Promise<string> {
  return docker(
    'exec',
    containerOf('as-1'),
    'node',
    'apps/authorization-server/bin/portcullis-admin.js',
    ...args,
  );
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** HTTP status of a request, or 0 when nothing answered within the timeout. */
export async function statusOf(url: string, init: RequestInit = {}): Promise<number> {
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(1_000) });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return 0;
  }
}

/** The PostgreSQL node Patroni names the primary (its REST API answers 200 to /primary), if one does. */
export async function patroniPrimary(): Promise<PostgresNode | undefined> {
  for (const [node, url] of Object.entries(HA.patroni) as [PostgresNode, string][]) {
    if ((await statusOf(`${url}/primary`)) === 200) return node;
  }
  return undefined;
}

/** Patroni's view of the cluster: each member's role and state, from any node that answers. */
export async function patroniCluster(): Promise<{ name: string; role: string; state: string }[]> {
  for (const url of Object.values(HA.patroni)) {
    try {
      const response = await fetch(`${url}/cluster`, { signal: AbortSignal.timeout(1_000) });
      const body = (await response.json()) as { members: { name: string; role: string; state: string }[] };
      return body.members.map(({ name, role, state }) => ({ name, role, state }));
    } catch {
      // the next node
    }
  }
  return [];
}

/** Where the sentinels say the master is (the first sentinel that answers), as its node name. */
export async function sentinelMaster(): Promise<RedisNode | undefined> {
  for (const port of HA.sentinels) {
    const sentinel = new Redis({ port, host: '127.0.0.1', lazyConnect: true, connectTimeout: 1_000 });
    try {
      await sentinel.connect();
      const address = (await sentinel.call('SENTINEL', 'get-master-addr-by-name', HA.masterName)) as
        [string, string] | null;
      const node = (Object.entries(HA.redis) as [RedisNode, number][]).find(
        ([, redisPort]) => String(redisPort) === address?.[1],
      );
      if (node) return node[0];
    } catch {
      // the next sentinel
    } finally {
      sentinel.disconnect();
    }
  }
  return undefined;
}

/** A command on one Redis node directly (not through Sentinel): what it holds. */
export async function onRedis<T>(node: RedisNode, fn: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis({ port: HA.redis[node], host: '127.0.0.1', lazyConnect: true });
  await redis.connect();
  try {
    return await fn(redis);
  } finally {
    redis.disconnect();
  }
}

/** A connection to one app's database through HAProxy's primary port, for asserting what was (not) written. */
export async function withAppDatabase<T>(
  database: 'authorization_server' | 'protected_server' | 'proxy',
  fn: (client: pg.Client) => Promise<T>,
): Promise<T> {
  const client = new pg.Client({
    connectionString: `postgresql://portcullis:${HA.databasePassword}@127.0.0.1:5440/${database}`,
  });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** HAProxy's view of one server: its state (`UP`, `DOWN`, ...), and the requests it retried and redispatched. */
export interface HaproxyServer {
  readonly status: string;
  readonly retries: number;
  readonly redispatches: number;
}

/** HAProxy's view of every server, by name (`as-1`, `pg-2`, ...), from its statistics CSV. */
export async function haproxyServers(): Promise<Record<string, HaproxyServer>> {
  const csv = await (
    await fetch('http://127.0.0.1:8404/;csv', { signal: AbortSignal.timeout(2_000) })
  ).text();
  const servers: Record<string, HaproxyServer> = {};
  // Columns: pxname, svname, ..., wretr (15), wredis (16), status (17).
  for (const line of csv.split('\n').slice(1)) {
    const fields = line.split(',');
    const server = fields[1];
    if (!server || server === 'FRONTEND' || server === 'BACKEND') continue;
    servers[server] = {
      status: fields[17] ?? '',
      retries: Number(fields[15] ?? 0),
      redispatches: Number(fields[16] ?? 0),
    };
  }
  return servers;
}
