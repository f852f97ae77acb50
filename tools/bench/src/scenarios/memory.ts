/**
 * Memory: the resident set of each app idle after boot, after a run of requests (100,000; 1,500 with `--quick`) that
 * exercise what the app keeps state for (tokens and their cache, refresh rotation, metadata, refused requests), and
 * after as many again. Each app runs as in production (metrics on, log level warn) on a PostgreSQL database of its own.
 */
import { randomBytes } from 'node:crypto';
import { ClientRepository, hashClientSecret } from '@portcullis/authorization';
import {
  freePort,
  PROTECTED_SERVER_MAIN,
  PROXY_MAIN,
  RESOURCE,
  startAuthorizationServers,
  startDatabase,
  startInstance,
  type AuthorizationServerCluster,
  type Instance,
  type TestClient,
  type TestDatabase,
} from '@portcullis/testing';
import { Pool } from 'undici';
import { own } from '../compare.js';
import { cores, startCpuMeter } from '../cpu-meter.js';
import { rssMiB } from '../load.js';
import type { ResultRow } from '../report.js';
import type { Settings } from '../settings.js';
import { ourTokenSets } from './authorization-server.js';
import { productionEnv } from '../production-env.js';

/** One request of an app's mix; throws when the answer is not the expected one. */
type Request = (pool: Pool, worker: number) => Promise<void>;

async function expectStatus(
  pool: Pool,
  options: Parameters<Pool['request']>[0],
  status: number,
): Promise<Record<string, unknown>> {
  const response = await pool.request(options);
  const text = await response.body.text();
  if (response.statusCode !== status) {
    throw new Error(
      `${options.method} ${options.path} answered ${response.statusCode}, not ${status}: ${text.slice(0, 200)}`,
    );
  }
  return text.startsWith('{') ? (JSON.parse(text) as Record<string, unknown>) : {};
}

const form = (params: Record<string, string>) => ({
  'content-type': 'application/x-www-form-urlencoded',
  body: new URLSearchParams(params).toString(),
});

function tokenRequest(params: Record<string, string>, headers: Record<string, string> = {}) {
  const { body, ...formHeaders } = form(params);
  return { method: 'POST' as const, path: '/token', headers: { ...formHeaders, ...headers }, body };
}

function basic(client: TestClient): Record<string, string> {
  const credentials = `${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret ?? '')}`;
  return { authorization: `Basic ${Buffer.from(credentials).toString('base64')}` };
}

/** Sends `total` requests of the mix (request `i` is `mix[i % mix.length]`) over `connections` workers. */
async function run(pool: Pool, mix: readonly Request[], total: number, connections: number): Promise<void> {
  let sent = 0;
  const worker = async (index: number) => {
    while (sent < total) {
      const request = mix[sent++ % mix.length] as Request;
      await request(pool, index);
    }
  };
  await Promise.all(Array.from({ length: connections }, (_, index) => worker(index)));
}

interface Measured {
  readonly app: string;
  readonly idle: number;
  readonly after: number;
  /** After as many requests again: what a leak would show as growth and a heap at its working size would not. */
  readonly afterAgain: number;
  readonly requests: number;
  readonly seconds: number;
  /** The load generator's CPU over the first run, in cores. */
  readonly generatorCores: number;
}

/**
 * Lets the booted app settle, reads its RSS, runs the mix, lets it settle, reads it; runs it again and reads it. Each
 * reading is taken after `quietSeconds` without a request: V8 gives back the young generation it grew under load (and
 * compacts the old one) only once its memory reducer finds the process idle, some 15 to 35 seconds after the last
 * allocation burst, so a reading taken sooner is of the heap as the load left it, not of the app at rest.
 */
async function measure(
  app: string,
  instance: Instance,
  mix: readonly Request[],
  total: number,
  connections: number,
  quietSeconds: number,
) {
  const settle = () => new Promise((resolve) => setTimeout(resolve, quietSeconds * 1000));
  const pid = instance.process.process.pid;
  await settle();
  const idle = rssMiB(pid) ?? NaN;
  const pool = new Pool(instance.url, { connections, pipelining: 1 });
  let seconds = 0;
  let after = NaN;
  let generatorCores = NaN;
  try {
    const meter = startCpuMeter();
    const started = performance.now();
    await run(pool, mix, total, connections);
    seconds = (performance.now() - started) / 1000;
    generatorCores = cores([meter()]);
    await settle();
    after = rssMiB(pid) ?? NaN;
    await run(pool, mix, total, connections);
  } finally {
    await pool.close();
  }
  await settle();
  return {
    app,
    idle,
    after,
    afterAgain: rssMiB(pid) ?? NaN,
    requests: total,
    seconds,
    generatorCores,
  } satisfies Measured;
}

/** The authorization server's mix: discovery, keys, refused and real refreshes (one family per worker). */
async function authorizationServerMix(cluster: AuthorizationServerCluster, connections: number) {
  const client = await cluster.createClient({ confidential: true });
  const user = await cluster.createUser();
  const families = (await ourTokenSets(cluster, client, user, connections)).map(
    (set) => set['refresh_token'] as string,
  );
  const mix: Request[] = [
    ...(await discoveryRequests(cluster.issuer)),
    async (pool) =>
      void (await expectStatus(
        pool,
        tokenRequest(
          { grant_type: 'refresh_token', refresh_token: randomBytes(32).toString('base64url') },
          basic(client),
        ),
        400,
      )),
    async (pool) =>
      void (await expectStatus(pool, { method: 'GET', path: '/.well-known/openid-configuration' }, 200)),
  ];
  // One real refresh in every twelve requests: rotation, the client cache, the signing key.
  const withRefresh = [...mix, ...mix, ...mix.slice(0, 3)];
  withRefresh.push(async (pool, worker) => {
    const body = await expectStatus(
      pool,
      tokenRequest({ grant_type: 'refresh_token', refresh_token: own(families, worker) }, basic(client)),
      200,
    );
    families[worker] = body['refresh_token'] as string;
  });
  return withRefresh;
}

/** The protected server's mix: the notes route with a few dozen valid tokens, its metadata, and a refused request. */
async function protectedServerMix(
  cluster: AuthorizationServerCluster,
  connections: number,
): Promise<Request[]> {
  const client = await cluster.createClient({ confidential: true });
  const user = await cluster.createUser();
  const tokens = (await ourTokenSets(cluster, client, user, Math.max(10, connections * 2))).map(
    (set) => set['access_token'] as string,
  );
  let next = 0;
  const notes: Request = async (pool) => {
    const token = tokens[next++ % tokens.length] as string;
    await expectStatus(
      pool,
      { method: 'GET', path: '/api/notes', headers: { authorization: `Bearer ${token}` } },
      200,
    );
  };
  return [
    notes,
    notes,
    notes,
    async (pool) =>
      void (await expectStatus(
        pool,
        { method: 'GET', path: '/.well-known/oauth-protected-resource/mcp' },
        200,
      )),
    async (pool) => void (await expectStatus(pool, { method: 'GET', path: '/api/notes' }, 401)),
  ];
}

/** GETs of an authorization server's RFC 8414 metadata and of its JWK set (at its `jwks_uri`). */
async function discoveryRequests(issuer: string): Promise<Request[]> {
  const metadata = (await (await fetch(`${issuer}/.well-known/oauth-authorization-server`)).json()) as {
    jwks_uri: string;
  };
  const jwksPath = new URL(metadata.jwks_uri).pathname;
  return [
    async (pool) =>
      void (await expectStatus(
        pool,
        { method: 'GET', path: '/.well-known/oauth-authorization-server' },
        200,
      )),
    async (pool) => void (await expectStatus(pool, { method: 'GET', path: jwksPath }, 200)),
  ];
}

/** The proxy's mix: its discovery, its keys, and a token request from a client it does not know. */
async function proxyMix(issuer: string): Promise<Request[]> {
  return [
    ...(await discoveryRequests(issuer)),
    async (pool) =>
      void (await expectStatus(
        pool,
        tokenRequest({
          grant_type: 'refresh_token',
          refresh_token: 'not-a-refresh-token',
          client_id: 'unknown-client',
        }),
        401,
      )),
  ];
}

/**
 * The quiet before each reading of a full run: past the memory reducer's pass, seen 15-20 s after boot and 30-35 s
 * after a load of the authorization server (a reading 30 s after the load still had the load's young generation).
 */
const QUIET_SECONDS = 45;

export async function memoryScenario(settings: Settings): Promise<ResultRow[]> {
  const total = settings.quick ? 1_500 : 100_000;
  const quietSeconds = settings.quick ? 2 : QUIET_SECONDS;
  const connections = settings.connections;
  const production = productionEnv;
  const databases: TestDatabase[] = [];
  const instances: Instance[] = [];
  let cluster: AuthorizationServerCluster | undefined;
  try {
    cluster = await startAuthorizationServers(1, production(), { direct: true });
    const [authorizationServer] = cluster.instances as [Instance];

    const psDatabase = await startDatabase();
    databases.push(psDatabase);
    const protectedServer = await startInstance(PROTECTED_SERVER_MAIN, {
      ...production(),
      DATABASE_URL: psDatabase.url ?? '',
      RESOURCE_URI: RESOURCE,
      AUTHORIZATION_SERVER: cluster.issuer,
    });
    instances.push(protectedServer);

    const proxyDatabase = await startDatabase();
    databases.push(proxyDatabase);
    const upstreamSecret = randomBytes(24).toString('base64url');
    const proxyPort = await freePort();
    const proxyIssuer = `http://127.0.0.1:${proxyPort}`;
    await new ClientRepository(cluster.database.database.prisma).create({
      clientId: 'portcullis-proxy',
      clientName: 'Portcullis proxy',
      redirectUris: [`${proxyIssuer}/upstream/callback`],
      grantTypes: ['authorization_code', 'refresh_token'],
      tokenEndpointAuthMethod: 'client_secret_basic',
      applicationType: 'web',
      origin: 'preregistered',
      secretHash: hashClientSecret(upstreamSecret),
    });
    const proxy = await startInstance(
      PROXY_MAIN,
      {
        ...production(),
        DATABASE_URL: proxyDatabase.url ?? '',
        ISSUER: proxyIssuer,
        COOKIE_SECRET: randomBytes(32).toString('base64url'),
        KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
        RATE_LIMIT_TOKEN: '1000000',
        UPSTREAM_ISSUER: cluster.issuer,
        UPSTREAM_CLIENT_ID: 'portcullis-proxy',
        UPSTREAM_CLIENT_SECRET: upstreamSecret,
        RESOURCES: JSON.stringify([{ uri: RESOURCE, scopes_supported: ['notes:read', 'notes:write'] }]),
      },
      proxyPort,
    );
    instances.push(proxy);

    const measured: Measured[] = [];
    // Each app is measured in turn, its mix made just before: its set-up requests are not counted, and the access
    // tokens it holds are fresh (the quiet periods of the apps measured before it outlast a token's lifetime).
    const asMix = await authorizationServerMix(cluster, connections);
    measured.push(
      await measure('authorization server', authorizationServer, asMix, total, connections, quietSeconds),
    );
    const psMix = await protectedServerMix(cluster, connections);
    measured.push(
      await measure('protected server', protectedServer, psMix, total, connections, quietSeconds),
    );
    const pxMix = await proxyMix(proxyIssuer);
    measured.push(await measure('proxy', proxy, pxMix, total, connections, quietSeconds));
    return measured.map((entry) => ({
      scenario: `memory, ${entry.app}`,
      unit: 'req/s',
      connections,
      ours: {
        rate: entry.requests / entry.seconds,
        p50: NaN,
        p99: NaN,
        rssMiB: entry.after,
        generatorCores: entry.generatorCores,
      },
      memory: {
        idleMiB: entry.idle,
        afterMiB: entry.after,
        afterAgainMiB: entry.afterAgain,
        requests: entry.requests,
        seconds: entry.seconds,
      },
      goal: { idleMiB: 150, growth: 0.1 },
      setup: `RSS ${quietSeconds} s after boot, and ${quietSeconds} s after ${entry.requests} requests (${Math.round(entry.requests / entry.seconds)} req/s, ${connections} connections); production settings, log level warn, PostgreSQL`,
    }));
  } finally {
    await Promise.all(instances.map((instance) => instance.process.stop('SIGTERM')));
    await cluster?.stop();
    await Promise.all(databases.map((database) => database.stop()));
  }
}
