/**
 * What authorization costs an MCP server's route, measured on `libs/resource-server` as a team mounts it:
 * - `resource-server`: one valid token on every request (the verdict cached), the guarded route against the same
 *   handler unguarded in the same process, the same request (token included) on both (the guard's cost), and against
 *   a bare NestJS-on-Fastify route (the platform's and the guard's cost together).
 * - `cold-validation`: a token never seen before on every request (ES256 signature verification, no cache hit)
 *   against one cached token on the same route, alternating windows: on the built protected server's notes route (a
 *   database read, the goal's row) and on the bench's guarded route (a constant answer); and that route's
 *   never-seen requests per CPU second of the server against jose's own verify rate per CPU second in the bench.
 * The guarded app is tools/bench/src/servers/guarded-app.ts on the Portcullis platform (metrics on, production
 * settings, log level warn); every token comes from a loopback issuer (servers/token-issuer.ts).
 */
import { fileURLToPath } from 'node:url';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import {
  postgresServerAvailable,
  PROTECTED_SERVER_MAIN,
  spawnApp,
  startDatabase,
  startInstance,
  type Instance,
  type SpawnedApp,
  type TestDatabase,
} from '@portcullis/testing';
import { compare } from '../compare.js';
import { processCpuSeconds, startCpuMeter } from '../cpu-meter.js';
import { drive, rssMiB, summarize, type Step, type Summary, type Window } from '../load.js';
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

/** `main` (the guarded app, or the built protected server) on a fresh database, trusting `issuer`. */
async function startGuardedApp(issuer: TokenIssuer, main = GUARDED_MAIN): Promise<GuardedApp> {
  if (!postgresServerAvailable()) {
    throw new Error('needs PostgreSQL: give --database-url (or set BENCH_DATABASE_URL)');
  }
  const database: TestDatabase = await startDatabase();
  try {
    // Its resource is its own origin's /mcp: the port is chosen by startInstance, so the audience is checked against
    // the resource named here, which tokens are minted for below.
    const resource = 'http://127.0.0.1/mcp';
    const instance = await startInstance(main, {
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
    // The same request on both routes, token included: the only difference is the guard.
    const headers = () => ({ authorization: `Bearer ${token}` });
    const guarded = getStep(pool, '/bench/guarded', headers);
    const sameProcess = await compare(
      settings,
      guarded,
      getStep(pool, '/bench/open', headers),
      settings.connections,
      [app.pid, app.pid],
    );
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
async function mintMany(
  issuer: TokenIssuer,
  resource: string,
  count: number,
  scope: string,
): Promise<string[]> {
  const tokens: string[] = [];
  for (let i = 0; i < count; i++) tokens.push(await issuer.mint({ aud: resource, scope }));
  return tokens;
}

/**
 * A window of GETs, each with the next unused token, on `connections` workers for `seconds` or until the tokens run
 * out, whichever comes first (the window is then shorter; its rate is still what it measured).
 */
async function freshTokenWindow(
  pool: PoolClient,
  path: string,
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
  const step = getStep(pool, path, () => ({ authorization: `Bearer ${tokens[next++] ?? ''}` }));
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

/**
 * A never-seen token on every request against one cached token, on the same route of the same process, in
 * alternating windows (after a warm-up of each): what the token's first validation costs a request there.
 */
async function neverSeenAgainstCached(
  settings: Settings,
  issuer: TokenIssuer,
  target: { url: string; path: string; resource: string; scope: string; pid: number | undefined },
): Promise<{ ours: Summary; peer: Summary }> {
  const pool = new PoolClient(target.url, settings.connections);
  try {
    const mint = (count: number) => mintMany(issuer, target.resource, count, target.scope);
    const cachedToken = (await mint(1))[0] ?? '';
    const cached = getStep(pool, target.path, () => ({ authorization: `Bearer ${cachedToken}` }));
    // How many tokens a window takes: a short probe, then that rate with a margin.
    const probe = await freshTokenWindow(pool, target.path, await mint(2_000), settings.connections, 0.5);
    const perWindow = Math.ceil((probe.latencies.length / probe.seconds) * 1.6 * settings.seconds) + 500;
    const warmup = Math.min(settings.warmupSeconds, settings.seconds);
    await freshTokenWindow(pool, target.path, await mint(perWindow), settings.connections, warmup);
    await drive(settings.connections, warmup, cached);
    const fresh: Window[] = [];
    const known: Window[] = [];
    let freshCpu = 0;
    let knownCpu = 0;
    for (let round = 0; round < settings.rounds; round++) {
      const tokens = await mint(perWindow);
      let before = processCpuSeconds(target.pid);
      fresh.push(await freshTokenWindow(pool, target.path, tokens, settings.connections, settings.seconds));
      freshCpu += processCpuSeconds(target.pid) - before;
      before = processCpuSeconds(target.pid);
      known.push(await drive(settings.connections, settings.seconds, cached));
      knownCpu += processCpuSeconds(target.pid) - before;
    }
    const ours = summarize(fresh);
    const peer = summarize(known);
    return {
      ours: { ...ours, serverCpuMs: (freshCpu * 1000) / ours.count },
      peer: { ...peer, serverCpuMs: (knownCpu * 1000) / peer.count },
    };
  } finally {
    await pool.close();
  }
}

export async function coldValidationScenario(settings: Settings): Promise<ResultRow[]> {
  const issuer = await startTokenIssuer();
  let app: GuardedApp | undefined;
  let server: GuardedApp | undefined;
  try {
    app = await startGuardedApp(issuer);
    const { resource, pid } = app;
    const onGuarded = await neverSeenAgainstCached(settings, issuer, {
      url: app.instance.url,
      path: '/bench/guarded',
      resource,
      scope: SCOPE,
      pid,
    });
    const rss = rssMiB(pid);
    await app.stop();
    app = undefined;
    server = await startGuardedApp(issuer, PROTECTED_SERVER_MAIN);
    const onNotes = await neverSeenAgainstCached(settings, issuer, {
      url: server.instance.url,
      path: '/api/notes',
      resource: server.resource,
      scope: 'notes:read',
      pid: server.pid,
    });
    const serverRss = rssMiB(server.pid);
    const jose = await joseVerifyRate(
      issuer,
      resource,
      await mintMany(issuer, resource, settings.quick ? 3_000 : 30_000, SCOPE),
      settings.connections,
    );
    const setup = `a token never seen before on each GET (ES256) against one cached token, alternating windows, ${settings.connections} connections, ${settings.rounds}x${settings.seconds}s each`;
    return [
      {
        scenario: 'never-seen token, protected server GET /api/notes',
        unit: 'req/s',
        connections: settings.connections,
        ours: { ...onNotes.ours, rssMiB: serverRss },
        peer: { name: 'one cached token', ...onNotes.peer },
        goal: { ratio: 0.85 },
        setup: `${setup}; the protected server's notes route (a database read), production settings`,
      },
      {
        scenario: 'never-seen token, bench guarded route',
        unit: 'req/s',
        connections: settings.connections,
        ours: { ...onGuarded.ours, rssMiB: rss },
        peer: { name: 'one cached token', ...onGuarded.peer },
        setup: `${setup}; the bench's guarded route (a constant answer): the verification against nothing else`,
      },
      {
        scenario: 'cold validation per CPU second',
        unit: 'validations per CPU second',
        connections: settings.connections,
        ours: {
          rate: 1000 / (onGuarded.ours.serverCpuMs ?? NaN),
          p50: onGuarded.ours.p50,
          p99: onGuarded.ours.p99,
          ...(onGuarded.ours.generatorCores === undefined
            ? {}
            : { generatorCores: onGuarded.ours.generatorCores }),
        },
        peer: { name: 'jose jwtVerify alone', rate: jose.perCpuSecond, p50: jose.p50, p99: jose.p99 },
        setup: `the guarded route's never-seen requests per CPU second of the server (HTTP, platform and guard included)`,
      },
    ];
  } finally {
    await app?.stop();
    await server?.stop();
    await issuer.close();
  }
}
