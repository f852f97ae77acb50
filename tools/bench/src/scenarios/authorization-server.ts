/**
 * The authorization server against oidc-provider, each a process of its own, the same client shape (confidential,
 * `client_secret_basic`, PKCE S256, refresh tokens rotated on every use):
 * - `refresh`: independent refresh token families, one per worker, each refreshed in a loop (each request consumes
 *   one token and gets the next), ours on PostgreSQL, oidc-provider in memory.
 * - `reauthorization`: a person with a session and consent: `/authorize` answers with a code at once, then `/token`
 *   redeems it; flows per second at `connections` workers, and the median at one.
 */
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { codeChallengeS256, generateCodeVerifier } from '@portcullis/protocol';
import {
  authorize,
  authorizationRequest,
  HeadlessUserAgent,
  postgresServerAvailable,
  spawnApp,
  startAuthorizationServers,
  tokenRequest,
  type AuthorizationServerCluster,
  type SpawnedApp,
  type TestClient,
  type UserAgentResponse,
} from '@portcullis/testing';
import { compare, own } from '../compare.js';
import { drive, rssMiB, summarize, type Step, type Window } from '../load.js';
import type { ResultRow } from '../report.js';
import type { Settings } from '../settings.js';

const PEER_MAIN = fileURLToPath(new URL('../../peers/oidc-provider.mjs', import.meta.url));
const REDIRECT_URI = 'http://127.0.0.1/callback';
const PEER_SECRET = randomBytes(24).toString('base64url');

/** RFC 6749 2.3.1 `client_secret_basic`. */
function basic(clientId: string, secret: string | undefined): Record<string, string> {
  const credentials = `${encodeURIComponent(clientId)}:${encodeURIComponent(secret ?? '')}`;
  return { authorization: `Basic ${Buffer.from(credentials).toString('base64')}` };
}

/** Our token endpoint, as the confidential client. */
function ourToken(issuer: string, client: TestClient, params: Record<string, string | undefined>) {
  return tokenRequest(issuer, params, basic(client.clientId, client.clientSecret));
}

/** oidc-provider's token endpoint, as its client. */
function peerToken(url: string, params: Record<string, string | undefined>) {
  return tokenRequest(url, params, basic('bench', PEER_SECRET));
}

/**
 * Our authorization server, one process on a fresh PostgreSQL database, its own URL the issuer, `env` added to its
 * environment.
 */
export async function startOurs(env: Record<string, string> = {}): Promise<{
  cluster: AuthorizationServerCluster;
  client: TestClient;
  user: { username: string; password: string };
  pid: number | undefined;
}> {
  if (!postgresServerAvailable()) {
    throw new Error('needs PostgreSQL: give --database-url (or set BENCH_DATABASE_URL)');
  }
  const cluster = await startAuthorizationServers(
    1,
    { NODE_ENV: 'production', METRICS_TOKEN: randomBytes(16).toString('base64url'), ...env },
    { direct: true },
  );
  // Confidential, as oidc-provider's: a public loopback client is asked to confirm on every authorization, there as here.
  const client = await cluster.createClient({ confidential: true });
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
    scope: 'notes:read',
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

/** A worker's refresh at our token endpoint: its family's token is presented and replaced by the rotated one. */
function ourRefreshStep(cluster: AuthorizationServerCluster, client: TestClient, families: string[]): Step {
  return async (worker) => {
    const answer = await ourToken(cluster.issuer, client, {
      grant_type: 'refresh_token',
      refresh_token: own(families, worker),
    });
    expectOk(answer, 'our refresh');
    families[worker] = answer.body['refresh_token'] as string;
  };
}

export async function refreshScenario(settings: Settings): Promise<ResultRow[]> {
  const ours = await startOurs();
  const peer = await startPeer();
  try {
    const n = settings.connections;
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
    const ourStep = ourRefreshStep(ours.cluster, ours.client, ourTokens);
    const peerStep: Step = async (worker) => {
      const answer = await peerToken(peer.url, {
        grant_type: 'refresh_token',
        refresh_token: own(peerTokens, worker),
      });
      expectOk(answer, "oidc-provider's refresh");
      peerTokens[worker] = answer.body['refresh_token'] as string;
    };
    const result = await compare(settings, ourStep, peerStep, n);
    return [
      {
        scenario: 'refresh',
        unit: 'refreshes/s',
        ours: { ...result.ours, rssMiB: rssMiB(ours.pid) },
        peer: { name: 'oidc-provider', ...result.peer, rssMiB: rssMiB(peer.pid) },
        goal: { rate: 1_000, p99Ms: 50 },
        setup: `${n} families, rotation on every refresh, ours on PostgreSQL, oidc-provider in memory, ${settings.rounds}x${settings.seconds}s each`,
      },
    ];
  } finally {
    await peer.app.stop('SIGTERM');
    await ours.cluster.stop();
  }
}

export async function reauthorizationScenario(settings: Settings): Promise<ResultRow[]> {
  const ours = await startOurs();
  const peer = await startPeer();
  try {
    const n = settings.connections;
    // One browser per worker, each with a session and consent (the first flow signs in and approves).
    const ourBrowsers = Array.from({ length: n }, () => new HeadlessUserAgent());
    const peerBrowsers = Array.from({ length: n }, () => new HeadlessUserAgent());
    const ourFlow = async (ua: HeadlessUserAgent) => {
      const request = authorizationRequest(ours.cluster.issuer, ours.client);
      const callback = await authorize(ua, request, ours.user, ours.client);
      expectOk(await ourRedeem(ours.cluster.issuer, ours.client, callback, request), 'our token endpoint');
    };
    const peerFlow = async (ua: HeadlessUserAgent) => {
      const { callback, verifier } = await peerAuthorize(ua, peer.url);
      expectOk(await peerRedeem(peer.url, callback, verifier), "oidc-provider's token endpoint");
    };
    for (const ua of ourBrowsers) await ourFlow(ua);
    for (const ua of peerBrowsers) await peerFlow(ua);
    const concurrent = await compare(
      settings,
      (worker) => ourFlow(own(ourBrowsers, worker)),
      (worker) => peerFlow(own(peerBrowsers, worker)),
      n,
    );
    const single = await compare(
      settings,
      () => ourFlow(own(ourBrowsers, 0)),
      () => peerFlow(own(peerBrowsers, 0)),
      1,
    );
    const setup = `session and consent already there, PKCE, ours on PostgreSQL, oidc-provider in memory, ${settings.rounds}x${settings.seconds}s each`;
    return [
      {
        scenario: `reauthorization, c=${n}`,
        unit: 'flows/s',
        ours: { ...concurrent.ours, rssMiB: rssMiB(ours.pid) },
        peer: { name: 'oidc-provider', ...concurrent.peer, rssMiB: rssMiB(peer.pid) },
        goal: { ratio: 1 },
        setup,
      },
      {
        scenario: 'reauthorization, c=1',
        unit: 'flows/s',
        ours: { ...single.ours, rssMiB: rssMiB(ours.pid) },
        peer: { name: 'oidc-provider', ...single.peer, rssMiB: rssMiB(peer.pid) },
        goal: { p50Ms: 25 },
        setup,
      },
    ];
  } finally {
    await peer.app.stop('SIGTERM');
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
  try {
    const n = settings.connections;
    const user = await ours.cluster.createUser();
    const families = (await ourTokenSets(ours.cluster, ours.client, user, n)).map(
      (set) => set['refresh_token'] as string,
    );
    const step = ourRefreshStep(ours.cluster, ours.client, families);
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
        ours: { ...history, rssMiB: rssMiB(ours.pid) },
        peer: { name: 'the same on fresh tables', ...empty },
        goal: { ratio: 0.8 },
        setup: `${n} families; then ${rows.toLocaleString('en')} expired access token records and as many used refresh tokens under ${Math.floor(rows / 10).toLocaleString('en')} expired grants (seeded in ${seededIn.toFixed(0)} s), ${settings.rounds}x${settings.seconds}s each`,
      },
    ];
  } finally {
    await ours.cluster.stop();
  }
}
