/**
 * The authorization server against oidc-provider, each a process of its own, the same client shape (confidential,
 * `client_secret_basic`, PKCE S256, refresh tokens rotated on every use), every timed request a raw one through a
 * keep-alive pool per server (raw-flow.ts):
 * - `refresh`: independent refresh token families, one per worker, each refreshed in a loop (each request consumes
 *   one token and gets the next), ours on PostgreSQL, oidc-provider in memory; and the same refresh's statements as
 *   plain SQL on our database (sql-reference.ts), the database's limit.
 * - `reauthorization`: a person with a session and consent: `/authorize` answers with a code at once, then `/token`
 *   redeems it; flows per second at `connections` workers, and the median at one.
 */
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { ClientRepository, generateClientSecret, hashClientSecret } from '@portcullis/authorization';
import { codeChallengeS256, generateCodeVerifier } from '@portcullis/protocol';
import {
  authorize,
  authorizationRequest,
  HeadlessUserAgent,
  postgresServerAvailable,
  RESOURCE,
  spawnApp,
  startAuthorizationServers,
  tokenRequest,
  type AuthorizationServerCluster,
  type SpawnedApp,
  type TestClient,
  type UserAgentResponse,
} from '@portcullis/testing';
import { compare, compareMany, own } from '../compare.js';
import { processCpuSeconds } from '../cpu-meter.js';
import { drive, rssMiB, summarize, type Step, type Window } from '../load.js';
import { basicAuthorization, PoolClient } from '../pool-client.js';
import { refreshStep, reauthorizationStep, type FlowClient, type FlowServer } from '../raw-flow.js';
import type { ResultRow } from '../report.js';
import type { Settings } from '../settings.js';
import { APP_DATABASE_POOL_SIZE, startSqlReference, type SqlReference } from '../sql-reference.js';
import { productionEnv, stopProfiled } from '../production-env.js';

const PEER_MAIN = fileURLToPath(new URL('../../peers/oidc-provider.mjs', import.meta.url));
/**
 * Both servers' client redirects here (never requested: the callback is only read). A web client on https keeps
 * silent re-authorization at both; a loopback redirect URI asks for a click on every authorization at ours
 * (RFC 8252 8.6), which would measure a page.
 */
const REDIRECT_URI = 'https://bench-client.example/callback';
const PEER_SECRET = randomBytes(24).toString('base64url');
const SCOPE = 'notes:read';

/** oidc-provider's client, as the raw flow sends it. */
const PEER_CLIENT: FlowClient = {
  clientId: 'bench',
  redirectUri: REDIRECT_URI,
  scope: SCOPE,
  authorization: basicAuthorization('bench', PEER_SECRET),
};

/** Our confidential client, as the raw flow sends it. */
export function ourFlowClient(client: TestClient): FlowClient {
  return {
    clientId: client.clientId,
    redirectUri: client.redirectUri,
    scope: SCOPE,
    resource: RESOURCE,
    ...(client.clientSecret
      ? { authorization: basicAuthorization(client.clientId, client.clientSecret) }
      : {}),
  };
}

/** Our server as the raw flow talks to it, through `pool`. */
export function ourFlowServer(pool: PoolClient): FlowServer {
  return { pool, authorizePath: '/authorize', tokenPath: '/token', name: 'our server' };
}

function peerFlowServer(pool: PoolClient): FlowServer {
  return { pool, authorizePath: '/auth', tokenPath: '/token', name: 'oidc-provider' };
}

/** Our token endpoint, as the confidential client, for the untimed setup. */
function ourToken(issuer: string, client: TestClient, params: Record<string, string | undefined>) {
  return tokenRequest(issuer, params, basicAuthorization(client.clientId, client.clientSecret));
}

/** oidc-provider's token endpoint, as its client, for the untimed setup. */
function peerToken(url: string, params: Record<string, string | undefined>) {
  return tokenRequest(url, params, basicAuthorization('bench', PEER_SECRET));
}

/**
 * Our authorization server, one process on a fresh PostgreSQL database, its own URL the issuer, `env` added to its
 * environment.
 */
export async function startOurs(
  env: Record<string, string> = {},
  instances = 1,
): Promise<{
  cluster: AuthorizationServerCluster;
  client: TestClient;
  user: { username: string; password: string };
  pid: number | undefined;
}> {
  if (!postgresServerAvailable()) {
    throw new Error('needs PostgreSQL: give --database-url (or set BENCH_DATABASE_URL)');
  }
  // One instance is its own issuer; several share the test balancer's URL as theirs (only the untimed setup goes
  // through it).
  const cluster = await startAuthorizationServers(
    instances,
    { ...productionEnv(), ...env },
    { direct: instances === 1 },
  );
  // Confidential and web, as oidc-provider's, on the same https redirect URI.
  const clientSecret = generateClientSecret();
  const { clientId } = await new ClientRepository(cluster.database.database.prisma).create({
    clientId: `bench-${randomBytes(4).toString('hex')}`,
    clientName: 'Bench client (confidential)',
    redirectUris: [REDIRECT_URI],
    grantTypes: ['authorization_code', 'refresh_token'],
    responseTypes: ['code'],
    tokenEndpointAuthMethod: 'client_secret_basic',
    applicationType: 'web',
    origin: 'preregistered',
    secretHash: hashClientSecret(clientSecret),
  });
  const client: TestClient = { clientId, clientSecret, redirectUri: REDIRECT_URI };
  const user = await cluster.createUser();
  return { cluster, client, user, pid: cluster.instances[0]?.process.process.pid };
}

/** oidc-provider as a process of its own. */
async function startPeer(): Promise<{ url: string; app: SpawnedApp; pid: number | undefined }> {
  const app = spawnApp(PEER_MAIN, { PORT: '0', CLIENT_SECRET: PEER_SECRET });
  const url = await app.ready;
  return { url, app, pid: app.process.pid };
}

/** One authorization at oidc-provider through its development pages (answered as needed); the callback URL. */
async function peerAuthorize(
  ua: HeadlessUserAgent,
  url: string,
): Promise<{ callback: URL; verifier: string }> {
  const verifier = generateCodeVerifier();
  const params = new URLSearchParams({
    response_type: 'code',
    client_id: 'bench',
    redirect_uri: REDIRECT_URI,
    code_challenge: codeChallengeS256(verifier),
    code_challenge_method: 'S256',
    scope: SCOPE,
    state: randomBytes(12).toString('base64url'),
  });
  let response: UserAgentResponse = await ua.get(`${url}/auth?${params.toString()}`);
  for (let step = 0; step < 12; step++) {
    const location = response.location;
    if (response.status >= 300 && response.status < 400 && location) {
      if (location.startsWith(REDIRECT_URI)) return { callback: new URL(location), verifier };
      response = await ua.follow(response);
      continue;
    }
    if (response.status !== 200)
      throw new Error(`oidc-provider answered ${response.status}: ${response.body}`);
    const [form] = response.forms();
    if (!form) throw new Error(`oidc-provider showed a page without a form: ${response.body.slice(0, 200)}`);
    response =
      'login' in form.fields
        ? await ua.submit(form, { login: 'bench-user', password: 'anything' })
        : await ua.submit(form);
  }
  throw new Error('oidc-provider did not come back to the client');
}

async function peerRedeem(url: string, callback: URL, verifier: string) {
  return peerToken(url, {
    grant_type: 'authorization_code',
    code: callback.searchParams.get('code') ?? undefined,
    redirect_uri: REDIRECT_URI,
    code_verifier: verifier,
  });
}

/** Redeems a code at our token endpoint as the confidential client. */
export async function ourRedeem(
  issuer: string,
  client: TestClient,
  callback: URL,
  request: { verifier: string },
) {
  return ourToken(issuer, client, {
    grant_type: 'authorization_code',
    code: callback.searchParams.get('code') ?? undefined,
    redirect_uri: client.redirectUri,
    code_verifier: request.verifier,
  });
}

export function expectOk(answer: { status: number; body: Record<string, unknown> }, what: string): void {
  if (answer.status !== 200)
    throw new Error(`${what} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
}

/**
 * `count` token responses of our server for `client` and `user`, each from a code flow of its own through the real
 * pages in one browser (a refresh token family each).
 */
export async function ourTokenSets(
  cluster: AuthorizationServerCluster,
  client: TestClient,
  user: { username: string; password: string },
  count: number,
): Promise<Record<string, unknown>[]> {
  const ua = new HeadlessUserAgent();
  const sets: Record<string, unknown>[] = [];
  for (let i = 0; i < count; i++) {
    const request = authorizationRequest(cluster.issuer, client);
    const answer = await ourRedeem(
      cluster.issuer,
      client,
      await authorize(ua, request, user, client),
      request,
    );
    expectOk(answer, 'our token endpoint');
    sets.push(answer.body);
  }
  return sets;
}

export async function refreshScenario(settings: Settings): Promise<ResultRow[]> {
  const ours = await startOurs();
  const peer = await startPeer();
  const n = settings.connections;
  const ourPool = new PoolClient(ours.cluster.issuer, n);
  const peerPool = new PoolClient(peer.url, n);
  let sql: SqlReference | undefined;
  try {
    const ourTokens = (await ourTokenSets(ours.cluster, ours.client, ours.user, n)).map(
      (set) => set['refresh_token'] as string,
    );
    const peerTokens: string[] = [];
    const peerUa = new HeadlessUserAgent();
    for (let i = 0; i < n; i++) {
      const { callback, verifier } = await peerAuthorize(peerUa, peer.url);
      const answer = await peerRedeem(peer.url, callback, verifier);
      expectOk(answer, "oidc-provider's token endpoint");
      const token = answer.body['refresh_token'];
      if (typeof token !== 'string') throw new Error('oidc-provider issued no refresh token');
      peerTokens.push(token);
    }
    const databaseUrl = ours.cluster.database.url;
    if (!databaseUrl) throw new Error('our database has no URL for the SQL reference');
    sql = await startSqlReference(databaseUrl, ours.client.clientId, n);
    const [mine, theirs, database] = await compareMany(
      settings,
      [
        refreshStep(ourFlowServer(ourPool), ourFlowClient(ours.client), ourTokens),
        refreshStep(peerFlowServer(peerPool), PEER_CLIENT, peerTokens),
        sql.step,
      ],
      n,
      [ours.pid, peer.pid],
    );
    if (!mine || !theirs || !database) throw new Error('refresh: a side was not measured');
    const windows = `${settings.rounds}x${settings.seconds}s each`;
    return [
      {
        scenario: 'refresh',
        unit: 'refreshes/s',
        connections: n,
        ours: { ...mine, rssMiB: rssMiB(ours.pid) },
        peer: { name: 'oidc-provider', ...theirs, rssMiB: rssMiB(peer.pid) },
        // Issue 31's goals: at least half of oidc-provider's rate in memory, p99 within 50 ms at c=20.
        goal: { ratio: 0.5, p99Ms: 50 },
        setup: `${n} families, rotation on every refresh, ours on PostgreSQL, oidc-provider in memory, ${windows}`,
      },
      {
        scenario: 'refresh vs its database',
        unit: 'refreshes/s',
        connections: n,
        ours: { ...mine, rssMiB: rssMiB(ours.pid) },
        peer: { name: 'the same statements as plain SQL (pg)', ...database },
        setup: `${n} workers; the refresh's ${sql.statements} statements (BEGIN and COMMIT included) through a pg pool of ${APP_DATABASE_POOL_SIZE} (the app's), on the same database, alternating with the windows above`,
      },
    ];
  } finally {
    await sql?.close();
    await Promise.all([ourPool.close(), peerPool.close()]);
    await peer.app.stop('SIGTERM');
    await stopProfiled(ours.cluster.instances.map((instance) => instance.process.process));
    await ours.cluster.stop();
  }
}

/**
 * The scale-out factor (issue 31 item 3): refresh with rotation on two instances of ours on one PostgreSQL, the
 * workers split between them, against the same workers all on one of the two, in alternating windows. Each
 * instance is reached through a keep-alive pool of its own (the balancing a client-side balancer or DNS round robin
 * does), so no proxy in the bench process shares the cores; on one machine the instances also share its cores with
 * PostgreSQL and the load generator, so the factor says what one more instance adds on the same machine, not on
 * a machine of its own.
 */
export async function refreshScaleOutScenario(settings: Settings): Promise<ResultRow[]> {
  const ours = await startOurs({}, 2);
  const n = settings.connections;
  const [first, second] = ours.cluster.instances;
  if (!first || !second) throw new Error('scale-out: two instances were not started');
  const pools = [new PoolClient(first.url, n), new PoolClient(second.url, n)] as const;
  try {
    const families = async () =>
      (await ourTokenSets(ours.cluster, ours.client, ours.user, n)).map(
        (set) => set['refresh_token'] as string,
      );
    const client = ourFlowClient(ours.client);
    const alone = refreshStep(ourFlowServer(pools[0]), client, await families());
    // Even workers on the first instance, odd ones on the second; each worker's family is its own.
    const spread = await families();
    const viaInstance = pools.map((pool) => refreshStep(ourFlowServer(pool), client, spread));
    const both: Step = (worker) => own(viaInstance, worker % 2)(worker);
    const pids = ours.cluster.instances.map((instance) => instance.process.process.pid);
    const cpuBefore = pids.map((pid) => processCpuSeconds(pid));
    const [two, one] = await compareMany(settings, [both, alone], n);
    if (!two || !one) throw new Error('scale-out: a side was not measured');
    const cpu = pids.map((pid, index) => processCpuSeconds(pid) - (cpuBefore[index] ?? 0));
    return [
      {
        scenario: 'refresh, two instances on one database',
        unit: 'refreshes/s',
        connections: n,
        ours: { ...two, rssMiB: rssMiB(second.process.process.pid) },
        peer: { name: 'the same workers on one instance', ...one, rssMiB: rssMiB(first.process.process.pid) },
        setup: `${n} families a side, rotation on every refresh, workers split between two instances (a keep-alive pool to each) against all on the first, ${settings.rounds}x${settings.seconds}s each; CPU seconds of the instances over both sides: ${cpu.map((seconds) => seconds.toFixed(1)).join(' and ')}`,
      },
    ];
  } finally {
    await Promise.all(pools.map((pool) => pool.close()));
    await stopProfiled(ours.cluster.instances.map((instance) => instance.process.process));
    await ours.cluster.stop();
  }
}

/** The `Cookie` header a user-agent sends to `url`; a worker without a session there is a bug of the setup. */
function sessionCookie(ua: HeadlessUserAgent, url: string): string {
  const cookie = ua.cookieJar.cookieHeader(url);
  if (!cookie) throw new Error(`no session cookie for ${url} after signing in`);
  return cookie;
}

export async function reauthorizationScenario(settings: Settings): Promise<ResultRow[]> {
  const ours = await startOurs();
  const peer = await startPeer();
  const n = settings.connections;
  const ourPool = new PoolClient(ours.cluster.issuer, n);
  const peerPool = new PoolClient(peer.url, n);
  try {
    // A session and consent per worker, untimed: the first flow of each browser signs in and approves; its cookies
    // are then replayed as a raw header.
    const ourCookies: string[] = [];
    const peerCookies: string[] = [];
    for (let i = 0; i < n; i++) {
      const ourUa = new HeadlessUserAgent();
      const request = authorizationRequest(ours.cluster.issuer, ours.client);
      const callback = await authorize(ourUa, request, ours.user, ours.client);
      expectOk(await ourRedeem(ours.cluster.issuer, ours.client, callback, request), 'our token endpoint');
      ourCookies.push(sessionCookie(ourUa, `${ours.cluster.issuer}/authorize`));
      const peerUa = new HeadlessUserAgent();
      const { callback: peerCallback, verifier } = await peerAuthorize(peerUa, peer.url);
      expectOk(await peerRedeem(peer.url, peerCallback, verifier), "oidc-provider's token endpoint");
      peerCookies.push(sessionCookie(peerUa, `${peer.url}/auth`));
    }
    const ourFlow = reauthorizationStep(ourFlowServer(ourPool), ourFlowClient(ours.client), ourCookies);
    const peerFlow = reauthorizationStep(peerFlowServer(peerPool), PEER_CLIENT, peerCookies);
    const concurrent = await compare(settings, ourFlow, peerFlow, n);
    const single = await compare(settings, ourFlow, peerFlow, 1);
    const setup = `session and consent already there (cookie replayed), /authorize read by its Location, PKCE, ours on PostgreSQL, oidc-provider in memory, ${settings.rounds}x${settings.seconds}s each`;
    return [
      {
        scenario: `reauthorization, c=${n}`,
        unit: 'flows/s',
        connections: n,
        ours: { ...concurrent.ours, rssMiB: rssMiB(ours.pid) },
        peer: { name: 'oidc-provider', ...concurrent.peer, rssMiB: rssMiB(peer.pid) },
        goal: { ratio: 0.5 },
        setup,
      },
      {
        scenario: 'reauthorization, c=1',
        unit: 'flows/s',
        connections: 1,
        ours: { ...single.ours, rssMiB: rssMiB(ours.pid) },
        peer: { name: 'oidc-provider', ...single.peer, rssMiB: rssMiB(peer.pid) },
        goal: { p50Ms: 25 },
        setup,
      },
    ];
  } finally {
    await Promise.all([ourPool.close(), peerPool.close()]);
    await peer.app.stop('SIGTERM');
    await stopProfiled(ours.cluster.instances.map((instance) => instance.process.process));
    await ours.cluster.stop();
  }
}

/**
 * Expired history, as an instance that has run for months holds it: `rows` expired access token records, and as many
 * used refresh tokens under `rows / 10` grants whose absolute lifetime ended, all between their expiry and the sweep.
 */
async function seedHistory(
  cluster: AuthorizationServerCluster,
  client: TestClient,
  user: { id: string },
  rows: number,
) {
  const prisma = cluster.database.database.prisma;
  await prisma.$executeRawUnsafe(
    `INSERT INTO "access_tokens" ("jti", "client_id", "subject", "audience", "scopes", "expires_at")
     SELECT 'history-' || i, $1, 'someone', 'http://localhost:4100/mcp', ARRAY['notes:read'], now() - interval '2 days'
     FROM generate_series(1, $2::int) AS i`,
    client.clientId,
    rows,
  );
  await prisma.$executeRawUnsafe(
    `INSERT INTO "grants" ("id", "client_id", "user_id", "resource", "scopes", "auth_time", "absolute_expires_at")
     SELECT gen_random_uuid(), $1, $2::uuid, 'http://localhost:4100/mcp', ARRAY['notes:read'],
            now() - interval '40 days', now() - interval '2 days'
     FROM generate_series(1, $3::int)`,
    client.clientId,
    user.id,
    Math.max(1, Math.floor(rows / 10)),
  );
  await prisma.$executeRawUnsafe(
    `INSERT INTO "refresh_tokens" ("token_hash", "grant_id", "scopes", "expires_at", "consumed_at")
     SELECT 'history-' || g."id" || '-' || i, g."id", g."scopes", g."absolute_expires_at", g."absolute_expires_at"
     FROM "grants" AS g CROSS JOIN generate_series(1, 10) AS i
     WHERE g."client_id" = $1 AND g."absolute_expires_at" < now()`,
    client.clientId,
  );
  await prisma.$executeRawUnsafe('ANALYZE');
}

/**
 * Refresh with rotation, ours alone: on fresh tables, then with a million expired rows in the token tables (20,000
 * with `--quick`). The goal: within 20 % (the cost of a refresh does not grow with history).
 */
export async function refreshHistoryScenario(settings: Settings): Promise<ResultRow[]> {
  const ours = await startOurs();
  const n = settings.connections;
  const pool = new PoolClient(ours.cluster.issuer, n);
  try {
    const user = await ours.cluster.createUser();
    const families = (await ourTokenSets(ours.cluster, ours.client, user, n)).map(
      (set) => set['refresh_token'] as string,
    );
    const step = refreshStep(ourFlowServer(pool), ourFlowClient(ours.client), families);
    const windows = async () => {
      await drive(n, settings.warmupSeconds, step);
      const measured: Window[] = [];
      for (let round = 0; round < settings.rounds; round++)
        measured.push(await drive(n, settings.seconds, step));
      return summarize(measured);
    };
    const empty = await windows();
    const rows = settings.quick ? 20_000 : 1_000_000;
    const seeding = performance.now();
    await seedHistory(ours.cluster, ours.client, user, rows);
    const seededIn = (performance.now() - seeding) / 1000;
    const history = await windows();
    return [
      {
        scenario: 'refresh with history',
        unit: 'refreshes/s',
        connections: n,
        ours: { ...history, rssMiB: rssMiB(ours.pid) },
        peer: { name: 'the same on fresh tables', ...empty },
        goal: { ratio: 0.8 },
        setup: `${n} families; then ${rows.toLocaleString('en')} expired access token records and as many used refresh tokens under ${Math.floor(rows / 10).toLocaleString('en')} expired grants (seeded in ${seededIn.toFixed(0)} s), ${settings.rounds}x${settings.seconds}s each`,
      },
    ];
  } finally {
    await pool.close();
    await ours.cluster.stop();
  }
}
