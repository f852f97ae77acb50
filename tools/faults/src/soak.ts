/**
 * `npm run soak -- --minutes 10`: the built authorization server and protected server as processes on PostgreSQL,
 * under steady mixed traffic for as long as asked: new connections (a browser signing in and approving, then the
 * token), refreshes, resource calls (REST reads and MCP writes) and step-ups (a wider scope with the session and one
 * more consent). Prints one summary line, and passes (exit 0) when nothing failed unexpectedly, each kind's p99 in
 * the last minute is within 1.5x of the first minute's, and each app's RSS grew less than 10% from the end of the
 * first minute (the warm-up: a heap grows to its working size first) to the end, both read right after a full
 * collection, as is the V8 heap that is still in use (which must not grow 10% either: a leak).
 *
 * PostgreSQL: TEST_DATABASE_URL's server, else a container where a container engine answers.
 * Options: --minutes N (default 10), --rate R (a multiplier of the default rates, 1), --json FILE (the summary).
 */
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import {
  freePort,
  HeadlessUserAgent,
  startDatabase,
  type TestDatabase,
  FlowStoppedError,
  PROTECTED_SERVER_MAIN,
  refresh,
  signIn,
  startAuthorizationServers,
  startInstance,
  type AuthorizationServerCluster,
  type Instance,
  type TestClient,
} from '@portcullis/testing';
import { heapSpacesMiB, heapUsedAfterGcMiB, quantile, rssMiB } from './flood.js';
import { callTool } from './mcp.js';

type Kind = 'connect' | 'refresh' | 'read' | 'write' | 'step-up';

/** Operations a second of each kind at --rate 1, from this many concurrent clients. */
const RATES: Record<Kind, { perSecond: number; clients: number }> = {
  connect: { perSecond: 1, clients: 2 },
  refresh: { perSecond: 20, clients: 8 },
  read: { perSecond: 30, clients: 6 },
  write: { perSecond: 10, clients: 4 },
  'step-up': { perSecond: 1, clients: 2 },
};

interface Sample {
  readonly at: number;
  readonly ms: number;
  readonly ok: boolean;
  readonly outcome: string;
}

async function containers(): Promise<() => Promise<void>> {
  if (process.env['TEST_DATABASE_URL']) return async () => undefined;
  const module = (await import(
    new URL('../../../libs/testing/jest/containers.js', import.meta.url).href
  )) as {
    setup(): Promise<void>;
    teardown(): Promise<void>;
  };
  await module.setup();
  if (!process.env['PORTCULLIS_TESTCONTAINERS_POSTGRES_URL']) {
    await module.teardown();
    throw new Error('soak needs PostgreSQL: set TEST_DATABASE_URL, or run where a container engine answers');
  }
  return () => module.teardown();
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      minutes: { type: 'string', default: '10' },
      rate: { type: 'string', default: '1' },
      json: { type: 'string' },
    },
  });
  const minutes = Number(values.minutes);
  const rate = Number(values.rate);
  if (!(minutes >= 2) || !(rate > 0)) throw new Error('--minutes must be at least 2 and --rate above 0');
  const stopContainers = await containers();
  let cluster: AuthorizationServerCluster | undefined;
  let psDatabase: TestDatabase | undefined;
  let ps: Instance | undefined;
  try {
    const psPort = await freePort();
    const resource = `http://127.0.0.1:${psPort}/mcp`;
    const inspectors = { authorizationServer: await freePort(), protectedServer: await freePort() };
    cluster = await startAuthorizationServers(1, {
      NODE_OPTIONS: `--inspect=127.0.0.1:${inspectors.authorizationServer}`,
      RESOURCES: JSON.stringify([
        {
          uri: resource,
          scopes_supported: ['notes:read', 'notes:write'],
          scope_hierarchy: { 'notes:write': ['notes:read'] },
        },
      ]),
    });
    psDatabase = await startDatabase();
    ps = await startInstance(
      PROTECTED_SERVER_MAIN,
      {
        DATABASE_URL: psDatabase.url ?? '',
        RESOURCE_URI: resource,
        AUTHORIZATION_SERVER: cluster.issuer,
        NODE_OPTIONS: `--inspect=127.0.0.1:${inspectors.protectedServer}`,
      },
      psPort,
    );
    const summary = await soak(cluster, ps, inspectors, resource, minutes, rate);
    const line =
      `soak ${minutes} min: ${summary.requests} requests, errors ${JSON.stringify(summary.errors)}, ` +
      `${summary.retriedGets} GETs sent again on a closed keep-alive connection; ` +
      Object.entries(summary.latency)
        .map(
          ([kind, l]) =>
            `${kind} p50/p99 ${l.first.p50.toFixed(1)}/${l.first.p99.toFixed(1)} ms first minute, ${l.last.p50.toFixed(1)}/${l.last.p99.toFixed(1)} ms last`,
        )
        .join('; ') +
      `; RSS authorization server ${summary.rss.authorizationServer.start.toFixed(0)} -> ${summary.rss.authorizationServer.end.toFixed(0)} MiB, protected server ${summary.rss.protectedServer.start.toFixed(0)} -> ${summary.rss.protectedServer.end.toFixed(0)} MiB` +
      `; heap after a full collection ${summary.heapAfterFullCollection.authorizationServer.start.toFixed(1)} -> ${summary.heapAfterFullCollection.authorizationServer.end.toFixed(1)} MiB, ${summary.heapAfterFullCollection.protectedServer.start.toFixed(1)} -> ${summary.heapAfterFullCollection.protectedServer.end.toFixed(1)} MiB` +
      `; ${summary.passed ? 'PASS' : `FAIL (${summary.failures.join('; ')})`}`;
    process.stdout.write(`${line}\n`);
    if (values.json) await writeFile(values.json, `${JSON.stringify(summary, null, 2)}\n`);
    return summary.passed ? 0 : 1;
  } finally {
    await ps?.process.stop('SIGTERM');
    await cluster?.stop();
    await psDatabase?.stop();
    await stopContainers();
  }
}

interface Inspectors {
  readonly authorizationServer: number;
  readonly protectedServer: number;
}

async function soak(
  cluster: AuthorizationServerCluster,
  ps: Instance,
  inspectors: Inspectors,
  resource: string,
  minutes: number,
  rate: number,
) {
  const client: TestClient = await cluster.createClient();
  const users = await Promise.all(Array.from({ length: 4 }, () => cluster.createUser()));
  const samples: Record<Kind, Sample[]> = { connect: [], refresh: [], read: [], write: [], 'step-up': [] };
  const started = performance.now();
  const endAt = started + minutes * 60_000;

  // Browsers send an idempotent request again when a reused keep-alive connection turns out closed (RFC 9112
  // 9.3.1.1); so do these, and the summary counts how often.
  const browsers: HeadlessUserAgent[] = [];
  const browser = () => {
    const ua = new HeadlessUserAgent({ retryIdempotent: true });
    browsers.push(ua);
    return ua;
  };
  const signedIn = async (ua: HeadlessUserAgent, scope: string) => {
    const user = users[Math.floor(Math.random() * users.length)] ?? users[0];
    if (!user) throw new Error('no user');
    return signIn(cluster.issuer, client, user, { ua, scope, resource });
  };
  // Families and tokens the refreshing, reading and writing clients use; made before the clock starts.
  const families: string[] = [];
  const accessTokens: string[] = [];
  for (let i = 0; i < RATES.refresh.clients; i++) {
    const tokens = await signedIn(browser(), 'notes:read');
    families.push(tokens.body['refresh_token'] as string);
  }
  for (let i = 0; i < 2; i++) {
    const tokens = await signedIn(browser(), 'notes:write');
    accessTokens.push(tokens.body['access_token'] as string);
  }
  // Access tokens live 300 s: the readers and writers renew theirs as a client would.
  const renewal = setInterval(() => {
    void Promise.all(
      accessTokens.map(async (_, index) => {
        const tokens = await signedIn(browser(), 'notes:write').catch(() => undefined);
        if (tokens?.status === 200) accessTokens[index] = tokens.body['access_token'] as string;
      }),
    );
  }, 120_000);

  const operations: Record<Kind, (client: number) => Promise<{ ok: boolean; outcome: string }>> = {
    connect: async () => {
      const tokens = await signedIn(browser(), 'notes:read');
      return { ok: tokens.status === 200, outcome: String(tokens.status) };
    },
    refresh: async (index) => {
      const answer = await refresh(cluster.issuer, client, families[index] ?? '');
      if (answer.status === 200) families[index] = answer.body['refresh_token'] as string;
      return { ok: answer.status === 200, outcome: String(answer.status) };
    },
    read: async (index) => {
      const response = await fetch(`${ps.url}/api/notes`, {
        headers: { authorization: `Bearer ${accessTokens[index % accessTokens.length] ?? ''}` },
      });
      await response.body?.cancel();
      return { ok: response.status === 200, outcome: String(response.status) };
    },
    write: async (index) => {
      const answer = await callTool(
        resource,
        accessTokens[index % accessTokens.length] ?? '',
        'notes_create',
        {
          title: `soak ${randomBytes(6).toString('hex')}`,
        },
      );
      const ok = answer.status === 200 && answer.result?.isError !== true;
      return { ok, outcome: ok ? '200' : answer.result?.isError ? 'tool-error' : String(answer.status) };
    },
    'step-up': async () => {
      const ua = browser();
      const first = await signedIn(ua, 'notes:read');
      if (first.status !== 200) return { ok: false, outcome: `sign-in ${first.status}` };
      // The same browser asks for more: its session signs it in, and it approves the wider scope.
      const wider = await signedIn(ua, 'notes:read notes:write');
      const scope = String(wider.body['scope'] ?? '');
      const ok = wider.status === 200 && scope.includes('notes:write');
      return { ok, outcome: ok ? '200' : String(wider.status) };
    },
  };

  const loops = (Object.keys(RATES) as Kind[]).flatMap((kind) => {
    const { perSecond, clients } = RATES[kind];
    const interval = (clients * 1000) / (perSecond * rate);
    return Array.from({ length: clients }, async (_, index) => {
      // Each client paces itself: one operation every `interval` ms, staggered.
      let next = performance.now() + (index * interval) / clients;
      while (next < endAt) {
        const wait = next - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        const at = performance.now();
        let result: { ok: boolean; outcome: string };
        try {
          result = await operations[kind](index);
        } catch (error) {
          result = {
            ok: false,
            outcome: error instanceof FlowStoppedError ? `page ${error.status}` : `error ${String(error)}`,
          };
        }
        samples[kind].push({ at: at - started, ms: performance.now() - at, ...result });
        next += interval;
      }
    });
  });

  const rssNow = async () => ({
    authorizationServer: await rssMiB(pidOf(cluster.instances[0])),
    protectedServer: await rssMiB(pidOf(ps)),
  });
  const heapNow = async () => ({
    authorizationServer: await heapUsedAfterGcMiB(inspectors.authorizationServer),
    protectedServer: await heapUsedAfterGcMiB(inspectors.protectedServer),
  });
  // Every 30 s: RSS and the size of each V8 heap space, to tell a leak (old space growing) from a heap settling
  // into its working size.
  const series: {
    at: number;
    rss: Record<string, number>;
    spaces: Record<string, Record<string, number>>;
  }[] = [];
  const sampler = setInterval(() => {
    void (async () => {
      series.push({
        at: Math.round(performance.now() - started),
        rss: await rssNow(),
        spaces: {
          authorizationServer: await heapSpacesMiB(inspectors.authorizationServer),
          protectedServer: await heapSpacesMiB(inspectors.protectedServer),
        },
      });
    })().catch(() => undefined);
  }, 30_000);
  // Memory at the end of the first minute (the warm-up) and at the end, each right after a full collection: what is
  // still held, not how far the heap happened to have grown since V8's last major collection.
  let rssStart = { authorizationServer: 0, protectedServer: 0 };
  let heapStart = { authorizationServer: 0, protectedServer: 0 };
  const firstMinute = new Promise<void>((resolve) =>
    setTimeout(async () => {
      heapStart = await heapNow();
      rssStart = await rssNow();
      resolve();
    }, 60_000),
  );
  await Promise.all([...loops, firstMinute]);
  clearInterval(renewal);
  clearInterval(sampler);
  const heapEnd = await heapNow();
  const rssEnd = await rssNow();

  const errors: Record<string, number> = {};
  const latency: Record<string, { first: { p50: number; p99: number }; last: { p50: number; p99: number } }> =
    {};
  const failures: string[] = [];
  const totalMs = minutes * 60_000;
  for (const kind of Object.keys(samples) as Kind[]) {
    for (const sample of samples[kind]) {
      if (!sample.ok) errors[`${kind} ${sample.outcome}`] = (errors[`${kind} ${sample.outcome}`] ?? 0) + 1;
    }
    const first = samples[kind].filter((sample) => sample.at < 60_000).map((sample) => sample.ms);
    const last = samples[kind].filter((sample) => sample.at >= totalMs - 60_000).map((sample) => sample.ms);
    latency[kind] = {
      first: { p50: quantile(first, 0.5), p99: quantile(first, 0.99) },
      last: { p50: quantile(last, 0.5), p99: quantile(last, 0.99) },
    };
    if (latency[kind].last.p99 > 1.5 * latency[kind].first.p99) {
      failures.push(
        `${kind} p99 grew from ${latency[kind].first.p99.toFixed(1)} to ${latency[kind].last.p99.toFixed(1)} ms`,
      );
    }
  }
  if (Object.keys(errors).length > 0) failures.push(`unexpected errors ${JSON.stringify(errors)}`);
  for (const app of ['authorizationServer', 'protectedServer'] as const) {
    if (rssEnd[app] > rssStart[app] * 1.1) {
      failures.push(`${app} RSS grew from ${rssStart[app].toFixed(0)} to ${rssEnd[app].toFixed(0)} MiB`);
    }
    if (heapEnd[app] > heapStart[app] * 1.1) {
      failures.push(`${app} heap grew from ${heapStart[app].toFixed(1)} to ${heapEnd[app].toFixed(1)} MiB`);
    }
  }
  return {
    minutes,
    rate,
    requests: Object.values(samples).reduce((sum, list) => sum + list.length, 0),
    retriedGets: browsers.reduce((sum, ua) => sum + ua.retried, 0),
    byKind: Object.fromEntries(Object.entries(samples).map(([kind, list]) => [kind, list.length])),
    errors,
    latency,
    rss: {
      authorizationServer: { start: rssStart.authorizationServer, end: rssEnd.authorizationServer },
      protectedServer: { start: rssStart.protectedServer, end: rssEnd.protectedServer },
    },
    heapAfterFullCollection: {
      authorizationServer: { start: heapStart.authorizationServer, end: heapEnd.authorizationServer },
      protectedServer: { start: heapStart.protectedServer, end: heapEnd.protectedServer },
    },
    series,
    // What the apps logged at warn and above (their log level here), when anything failed.
    logs:
      failures.length === 0
        ? {}
        : {
            authorizationServer: lastLines(cluster.instances[0]),
            protectedServer: lastLines(ps),
          },
    failures,
    passed: failures.length === 0,
  };
}

function lastLines(instance: Instance | undefined): string[] {
  if (!instance) return [];
  const text = `${instance.process.stdout()}${instance.process.stderr()}`;
  return text.trim().split('\n').slice(-30);
}

function pidOf(instance: Instance | undefined): number {
  const pid = instance?.process.process.pid;
  if (pid === undefined) throw new Error('the app has no process');
  return pid;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`soak: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
