/**
 * What authorization costs an MCP server's route, measured on `libs/resource-server` as a team mounts it:
 * - `resource-server`: one valid token on every request (the verdict cached), the guarded route against the same
 *   handler unguarded in the same process (the guard's cost), and against a bare NestJS-on-Fastify route (the
 *   platform's and the guard's cost together).
 * - `cold-validation`: a token never seen before on every request (ES256 signature verification, no cache hit), per
 *   CPU second of the server process, against jose's own verify rate per CPU second in the bench process.
 * The app under test is tools/bench/src/servers/guarded-app.ts on the Portcullis platform (metrics on, production
 * settings, log level warn), its tokens from a loopback issuer (servers/token-issuer.ts).
 */
import { fileURLToPath } from 'node:url';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import {
  postgresServerAvailable,
  spawnApp,
  startDatabase,
  startInstance,
  type Instance,
  type SpawnedApp,
  type TestDatabase,
} from '@portcullis/testing';
import { compare } from '../compare.js';
import { processCpuSeconds, startCpuMeter } from '../cpu-meter.js';
import { rssMiB, summarize, type Step, type Summary, type Window } from '../load.js';
import { PoolClient } from '../pool-client.js';
import type { ResultRow } from '../report.js';
import { startTokenIssuer, type TokenIssuer } from '../servers/token-issuer.js';
import type { Settings } from '../settings.js';
import { productionEnv } from '../production-env.js';

const GUARDED_MAIN = fileURLToPath(new URL('../servers/guarded-app.js', import.meta.url));
const BARE_MAIN = fileURLToPath(new URL('../servers/bare-nest.js', import.meta.url));
const SCOPE = 'notes:read';

interface GuardedApp {
  readonly instance: Instance;
  readonly resource: string;
  readonly pid: number | undefined;
  stop(): Promise<void>;
}

async function startGuardedApp(issuer: TokenIssuer): Promise<GuardedApp> {
  if (!postgresServerAvailable()) {
    throw new Error('needs PostgreSQL: give --database-url (or set BENCH_DATABASE_URL)');
  }
  const database: TestDatabase = await startDatabase();
  try {
    // Its resource is its own origin's /mcp: the port is chosen by startInstance, so the audience is checked against
    // the resource named here, which tokens are minted for below.
    const resource = 'http://127.0.0.1/mcp';
    const instance = await startInstance(GUARDED_MAIN, {
      ...productionEnv(),
      DATABASE_URL: database.url ?? '',
      RESOURCE_URI: resource,
      AUTHORIZATION_SERVER: issuer.issuer,
    });
    return {
      instance,
      resource,
      pid: instance.process.process.pid,
      stop: async () => {
        await instance.process.stop('SIGTERM');
        await database.stop();
      },
    };
  } catch (error) {
    await database.stop();
    throw error;
  }
}

/** A step that GETs `path` on `pool` with the headers of `headers(worker)` and expects a 200. */
function getStep(
  pool: PoolClient,
  path: string,
  headers: (worker: number) => Record<string, string> = () => ({}),
): Step {
  return async (worker) => {
    const answer = await pool.send('GET', path, headers(worker));
    if (answer.status !== 200) {
      throw new Error(
        `GET ${path} answered ${answer.status} ${String(answer.headers['www-authenticate'] ?? '')} ${answer.text.slice(0, 200)}`,
      );
    }
  };
}

export async function resourceServerScenario(settings: Settings): Promise<ResultRow[]> {
  const issuer = await startTokenIssuer();
  let app: GuardedApp | undefined;
  let bare: SpawnedApp | undefined;
  const pools: PoolClient[] = [];
  try {
    app = await startGuardedApp(issuer);
    bare = spawnApp(BARE_MAIN, {});
    const bareUrl = await bare.ready;
    const pool = new PoolClient(app.instance.url, settings.connections);
    const barePool = new PoolClient(bareUrl, settings.connections);
    pools.push(pool, barePool);
    const token = await issuer.mint({ aud: app.resource, scope: SCOPE });
    const guarded = getStep(pool, '/bench/guarded', () => ({ authorization: `Bearer ${token}` }));
    const sameProcess = await compare(settings, guarded, getStep(pool, '/bench/open'), settings.connections, [
      app.pid,
      app.pid,
    ]);
    const againstBare = await compare(
      settings,
      guarded,
      getStep(barePool, '/bench/open'),
      settings.connections,
      [app.pid, bare.process.pid],
    );
    const setup = `GET with one valid ES256 token (verdict cached), ${settings.connections} connections, ${settings.rounds}x${settings.seconds}s each, metrics on, log level warn`;
    return [
      {
        scenario: 'resource-server guard',
        unit: 'req/s',
        connections: settings.connections,
        ours: { ...sameProcess.ours, rssMiB: rssMiB(app.pid) },
        peer: { name: 'the same route unguarded', ...sameProcess.peer },
        goal: { ratio: 0.9 },
        setup,
      },
      {
        scenario: 'resource-server guard vs bare NestJS',
        unit: 'req/s',
        connections: settings.connections,
        ours: { ...againstBare.ours, rssMiB: rssMiB(app.pid) },
        peer: { name: 'bare NestJS on Fastify', ...againstBare.peer, rssMiB: rssMiB(bare.process.pid) },
        setup: `${setup}; the bare app has no platform (no logging, metrics, database)`,
      },
    ];
  } finally {
    await Promise.all(pools.map((pool) => pool.close()));
    await bare?.stop('SIGTERM');
    await app?.stop();
    await issuer.close();
  }
}

/** `count` distinct tokens, each valid for the resource. */
async function mintMany(issuer: TokenIssuer, resource: string, count: number): Promise<string[]> {
  const tokens: string[] = [];
  for (let i = 0; i < count; i++) tokens.push(await issuer.mint({ aud: resource, scope: SCOPE }));
  return tokens;
}

/**
 * A window of GETs, each with the next unused token, on `connections` workers for `seconds` or until the tokens run
 * out, whichever comes first (the window is then shorter; its rate is still what it measured).
 */
async function freshTokenWindow(
  pool: PoolClient,
  tokens: readonly string[],
  connections: number,
  seconds: number,
): Promise<Window> {
  let next = 0;
  const latencies: number[] = [];
  const meter = startCpuMeter();
  const started = performance.now();
  const endAt = started + seconds * 1000;
  let last = started;
  const step = getStep(pool, '/bench/guarded', () => ({ authorization: `Bearer ${tokens[next++] ?? ''}` }));
  const worker = async (index: number) => {
    while (performance.now() < endAt && next < tokens.length) {
      const sent = performance.now();
      await step(index);
      last = performance.now();
      latencies.push(last - sent);
    }
  };
  await Promise.all(Array.from({ length: connections }, (_, index) => worker(index)));
  return { latencies, seconds: (last - started) / 1000, generator: meter() };
}

/** jose's `jwtVerify` over distinct tokens in this process, `concurrency` at a time: verifications per CPU second. */
async function joseVerifyRate(
  issuer: TokenIssuer,
  resource: string,
  tokens: readonly string[],
  concurrency: number,
): Promise<Summary & { perCpuSecond: number }> {
  const keys = createLocalJWKSet((await (await fetch(`${issuer.issuer}/jwks`)).json()) as JSONWebKeySet);
  let next = 0;
  const latencies: number[] = [];
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const worker = async () => {
    for (let token = tokens[next++]; token !== undefined; token = tokens[next++]) {
      const sent = performance.now();
      await jwtVerify(token, keys, { issuer: issuer.issuer, audience: resource, algorithms: ['ES256'] });
      latencies.push(performance.now() - sent);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  return {
    ...summarize([{ latencies, seconds }]),
    perCpuSecond: latencies.length / ((cpu.user + cpu.system) / 1e6),
  };
}

export async function coldValidationScenario(settings: Settings): Promise<ResultRow[]> {
  const issuer = await startTokenIssuer();
  let app: GuardedApp | undefined;
  let pool: PoolClient | undefined;
  try {
    app = await startGuardedApp(issuer);
    pool = new PoolClient(app.instance.url, settings.connections);
    const { resource, pid } = app;
    // How many tokens a window takes: a short probe, then that rate with a margin.
    const probe = await mintMany(issuer, resource, 3_000);
    const probeWindow = await freshTokenWindow(pool, probe, settings.connections, 0.5);
    const perWindow =
      Math.ceil((probeWindow.latencies.length / probeWindow.seconds) * 1.6 * settings.seconds) + 500;
    await freshTokenWindow(
      pool,
      await mintMany(issuer, resource, perWindow),
      settings.connections,
      Math.min(settings.warmupSeconds, settings.seconds),
    );
    const windows: Window[] = [];
    let cpu = 0;
    for (let round = 0; round < settings.rounds; round++) {
      const tokens = await mintMany(issuer, resource, perWindow);
      const before = processCpuSeconds(pid);
      windows.push(await freshTokenWindow(pool, tokens, settings.connections, settings.seconds));
      cpu += processCpuSeconds(pid) - before;
    }
    const ours = summarize(windows);
    const jose = await joseVerifyRate(
      issuer,
      resource,
      await mintMany(issuer, resource, settings.quick ? 3_000 : 30_000),
      settings.connections,
    );
    return [
      {
        scenario: 'cold validation',
        unit: 'validations per CPU second',
        connections: settings.connections,
        ours: {
          rate: ours.count / cpu,
          p50: ours.p50,
          p99: ours.p99,
          rssMiB: rssMiB(pid),
          ...(ours.generatorCores === undefined ? {} : { generatorCores: ours.generatorCores }),
        },
        peer: { name: 'jose jwtVerify alone', rate: jose.perCpuSecond, p50: jose.p50, p99: jose.p99 },
        goal: { rate: 6_000 },
        setup: `a token never seen before on each GET, ES256; ${Math.round(ours.rate)} req/s on ${cpu.toFixed(1)} CPU s over ${settings.rounds}x${settings.seconds}s, ${settings.connections} connections`,
      },
    ];
  } finally {
    await pool?.close();
    await app?.stop();
    await issuer.close();
  }
}
