// The highly available stack (docker/ha/compose.yaml) under load, three faults in turn:
// - the PostgreSQL primary's container killed: Patroni promotes the synchronous standby; meanwhile the apps answer
//   503 with Retry-After (a tool call: a tool error saying when to retry), never a 500; within 15 s every kind of
//   request works again; every token acknowledged before the kill is still valid after it, no refresh family dies,
//   every note acknowledged is stored;
// - one instance of the authorization server and one of the protected server killed: HAProxy takes them out and
//   their peers serve; no sign-in in progress is lost, and no request but a DPoP one in flight on a killed instance
//   (HAProxy does not send a used proof twice);
// - the Redis master killed: Sentinel promotes the replica; DPoP's replay store (fail closed: 503 meanwhile) and the
//   shared rate limits work again on the new master.
// Each figure is printed (and collected for docs/high-availability.md).
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { HeadlessUserAgent } from '@portcullis/testing';
import {
  admin,
  haproxyServers,
  HA,
  kill,
  onRedis,
  patroniCluster,
  patroniPrimary,
  sentinelMaster,
  sleep,
  start,
  waitHealthy,
  withAppDatabase,
  type PostgresNode,
  type RedisNode,
} from './support/ha-stack.js';
import {
  beginSignIn,
  callTool,
  dpopKey,
  dpopProof,
  errorsByStatus,
  Load,
  lost,
  newFamily,
  recoveredAt,
  refreshFamily,
  signInsBegunAgain,
  succeeded,
  type Family,
  type Kind,
  type Principal,
} from './support/load.js';

const figures: Record<string, Record<string, unknown>> = {};

function report(scenario: string, values: Record<string, unknown>): void {
  figures[scenario] = values;
  process.stderr.write(`\n[portcullis:e2e:ha] ${scenario}\n`);
  for (const [name, value] of Object.entries(values)) {
    process.stderr.write(`  ${name}: ${typeof value === 'string' ? value : JSON.stringify(value)}\n`);
  }
}

function seconds(ms: number | undefined): string {
  return ms === undefined ? 'never' : `${(ms / 1000).toFixed(1)} s`;
}

/** Waits until `condition` holds (polling every 100 ms); the time it took, or undefined past `withinMs`. */
async function until(condition: () => Promise<boolean>, withinMs: number): Promise<number | undefined> {
  const started = Date.now();
  while (Date.now() - started < withinMs) {
    if (await condition().catch(() => false)) return Date.now() - started;
    await sleep(100);
  }
  return undefined;
}

/**
 * Waits until the load works again after a fault at `from`: no request has failed for `quietMs`, and each of `kinds`
 * has succeeded since the last one that did. Called once the fault is known to have bitten (a failover happened).
 */
function workingAgain(
  load: Load,
  from: number,
  kinds: readonly Kind[],
  quietMs = 3_000,
): Promise<number | undefined> {
  return until(async () => {
    const last = recoveredAt(load.outcomes, from);
    return (
      Date.now() - last >= quietMs &&
      kinds.every((kind) =>
        load.outcomes.some(
          (outcome) => outcome.kind === kind && outcome.startedAt >= last && succeeded(outcome),
        ),
      )
    );
  }, 30_000);
}

const ALL_KINDS: readonly Kind[] = ['refresh', 'tool', 'sign-in', 'dpop-tool'];

describe('the highly available stack under load (20 clients)', () => {
  const password = randomBytes(12).toString('base64url');
  const principal: Principal = {
    client: { clientId: 'ha-load', redirectUri: 'http://127.0.0.1/callback' },
    user: { username: 'ha-user', password },
  };
  let refreshers: Family[];
  let writers: Family[];
  let dpopCallers: Family[];

  beforeAll(async () => {
    // The proxy's upstream client (public, PKCE), the load's client and user: what an operator creates once.
    await admin(
      'clients',
      'create',
      '--name',
      'Portcullis proxy',
      '--client-id',
      'portcullis-proxy',
      '--auth',
      'none',
      '--redirect-uri',
      `${HA.proxy}/upstream/callback`,
    );
    await admin(
      'clients',
      'create',
      '--name',
      'HA load',
      '--client-id',
      principal.client.clientId,
      '--auth',
      'none',
      '--redirect-uri',
      principal.client.redirectUri,
    );
    await admin('users', 'create', principal.user.username, '--password', password);
    // One browser: the password is checked once, then the session signs in the other families.
    const ua = new HeadlessUserAgent();
    const families = async (count: number, dpop = false) => {
      const made: Family[] = [];
      for (let i = 0; i < count; i++)
        made.push(await newFamily(principal, ua, dpop ? await dpopKey() : undefined));
      return made;
    };
    refreshers = await families(8);
    writers = await families(6);
    dpopCallers = await families(2, true);
    report('set up', {
      '16 token families (2 DPoP-bound) through the pages; sign-ins begun again after a 503 with Retry-After':
        signInsBegunAgain.count,
    });
  });

  afterAll(() => {
    process.stderr.write(`\n[portcullis:e2e:ha] figures ${JSON.stringify(figures)}\n`);
  });

  const newLoad = (label: string) => new Load(principal, refreshers, writers, dpopCallers, 4).start(label);

  it('PostgreSQL primary killed: Patroni promotes the standby, 503 with Retry-After meanwhile, working again within 15 s, nothing acknowledged lost', async () => {
    // Tokens acknowledged just before the kill, in families of their own that nothing touches until after it.
    const witnesses = await Promise.all(
      Array.from({ length: 10 }, () => newFamily(principal, new HeadlessUserAgent())),
    );
    const primary = await patroniPrimary();
    expect(primary).toBeDefined();
    const standby: PostgresNode = primary === 'pg-1' ? 'pg-2' : 'pg-1';
    expect(await patroniCluster()).toContainEqual(
      expect.objectContaining({ name: standby, role: 'sync_standby' }),
    );

    const load = newLoad('pg-failover');
    await sleep(3_000);
    for (const witness of witnesses) expect((await refreshFamily(principal, witness)).status).toBe(200);
    const acknowledgedBefore = witnesses.map(({ refreshToken, accessToken }) => ({
      refreshToken,
      accessToken,
    }));

    const killedAt = Date.now();
    await kill(primary!);
    const promoted = await until(async () => (await patroniPrimary()) === standby, 30_000);
    const working = await workingAgain(load, killedAt, ALL_KINDS);
    await load.stop();

    const during = load.outcomes.filter((outcome) => outcome.endedAt >= killedAt);
    const recovered = recoveredAt(load.outcomes, killedAt) - killedAt;
    const stored = await withAppDatabase('protected_server', async (db) => {
      const rows = await db.query<{ title: string; copies: string }>(
        'SELECT title, count(*) AS copies FROM notes WHERE title = ANY($1) GROUP BY title',
        [load.acknowledged],
      );
      return rows.rows;
    });
    const witnessCalls = await Promise.all(
      acknowledgedBefore.map(async ({ accessToken }) => {
        const answer = await callTool({ accessToken, refreshToken: '' }, 'notes_list', {});
        return answer.status === 200 && answer.result !== undefined && !answer.result.isError;
      }),
    );
    const witnessRefreshes = await Promise.all(
      witnesses.map(async (witness) => (await refreshFamily(principal, witness)).status),
    );
    const died = load.families.filter((family) => family.died).map((family) => family.died);
    const lostRequests = lost(during);
    report('PostgreSQL primary killed', {
      killed: primary,
      'standby promoted (Patroni) after': seconds(promoted),
      'every kind of request working again (the last failed one ended) after': seconds(recovered),
      'requests during the switch': during.length,
      'errors by status': errorsByStatus(during),
      'requests lost (5xx other than 503 with Retry-After, no answer)': lostRequests.length,
      'notes acknowledged, stored once': `${load.acknowledged.length}, ${stored.filter((row) => row.copies === '1').length}`,
      'tokens acknowledged before the kill, valid after (refresh, access)': `${witnessRefreshes.filter((status) => status === 200).length}/${witnesses.length}, ${witnessCalls.filter(Boolean).length}/${witnesses.length}`,
      'refresh families ended': died.length,
    });

    expect(promoted).toBeDefined();
    expect(working).toBeDefined();
    expect(recovered).toBeLessThanOrEqual(15_000);
    expect(lostRequests).toEqual([]);
    // Never a 500: every refusal is a 503 that says when to retry (on MCP: a tool error that does).
    expect(during.filter((outcome) => !succeeded(outcome) && !outcome.retryLater)).toEqual([]);
    expect(witnessRefreshes).toEqual(witnesses.map(() => 200));
    expect(witnessCalls).toEqual(witnesses.map(() => true));
    expect(died).toEqual([]);
    expect(load.acknowledged.length).toBeGreaterThan(0);
    expect(stored.map((row) => [row.title, row.copies]).sort()).toEqual(
      load.acknowledged.map((title) => [title, '1']).sort(),
    );

    // The killed node comes back as the synchronous standby (pg_rewind onto the new timeline): HA again.
    const restartedAt = Date.now();
    await start(primary!);
    const rejoined = await until(
      async () =>
        (await patroniCluster()).some(
          (member) =>
            member.name === primary &&
            member.role === 'sync_standby' &&
            ['running', 'streaming'].includes(member.state),
        ),
      90_000,
    );
    report('PostgreSQL primary killed, then restarted', {
      'back as the synchronous standby after': seconds(rejoined ?? Date.now() - restartedAt),
    });
    expect(rejoined).toBeDefined();
  });

  it('an authorization server and a protected server instance killed: their peers serve, no request or sign-in in progress lost', async () => {
    const load = newLoad('instance-killed');
    await sleep(3_000);
    // Sign-ins begun before the kill (the login page served, by either instance) and finished after it.
    const begun = await Promise.all(Array.from({ length: 6 }, () => beginSignIn(principal)));
    const before = await haproxyServers();
    const killedAt = Date.now();
    let retriedBegun = 0;
    await Promise.all([kill('as-1'), kill('ps-1')]);
    const deadAt = Date.now();
    const [finished, takenOut] = await Promise.all([
      Promise.all(
        begun.map((finish) =>
          finish().then(
            (answer) => {
              retriedBegun += answer.retriedAfter503;
              return answer.status;
            },
            (error: unknown) => String((error as Error).message ?? error),
          ),
        ),
      ),
      until(async () => {
        const servers = await haproxyServers();
        return (
          servers['as-1']?.status.startsWith('DOWN') === true &&
          servers['ps-1']?.status.startsWith('DOWN') === true
        );
      }, 10_000).then((ms) => (ms === undefined ? undefined : Date.now() - killedAt)),
    ]);
    // Sign-ins in progress across the kill, and on the peers alone after it.
    await sleep(6_000);
    await load.stop();
    const after = await haproxyServers();

    const during = load.outcomes.filter((outcome) => outcome.endedAt >= killedAt);
    const signIns = during.filter((outcome) => outcome.kind === 'sign-in');
    const inProgress = signIns.filter((outcome) => outcome.startedAt < killedAt);
    const begunCompleted = finished.filter((status) => status === 200).length;
    const retried = (['as-1', 'as-2', 'ps-1', 'ps-2'] as const).reduce(
      (sum, server) =>
        sum +
        (after[server]!.retries - before[server]!.retries) +
        (after[server]!.redispatches - before[server]!.redispatches),
      0,
    );
    const lostRequests = lost(during);
    report('authorization server and protected server instance killed', {
      killed: 'as-1, ps-1',
      'taken out of rotation by HAProxy after': seconds(takenOut),
      'requests after the kill': during.length,
      'errors by status': errorsByStatus(during),
      'requests lost': lostRequests.length,
      'sign-ins begun before the kill and finished after it, completed': `${finished.length}, ${begunCompleted}`,
      'pages of those sent again after a 503 with Retry-After': retriedBegun,
      'sign-ins of the load in progress at the kill, completed': `${inProgress.length}, ${inProgress.filter(succeeded).length}`,
      'sign-ins after the kill, completed': `${signIns.length}, ${signIns.filter(succeeded).length}`,
      'requests HAProxy retried or sent to the peer': retried,
    });

    expect(takenOut).toBeDefined();
    expect(finished).toEqual(begun.map(() => 200));
    // HAProxy sends what the dead instances dropped to their peers, except a request with a DPoP proof: a proof is
    // good once (RFC 9449 11.1), so one in flight on a killed instance fails (502, or its connection closed) and the
    // client sends a new one.
    expect(
      lostRequests.filter((outcome) => outcome.kind !== 'dpop-tool' || outcome.startedAt > deadAt),
    ).toEqual([]);
    expect(lostRequests.filter((outcome) => outcome.status !== 502 && outcome.status !== 'network')).toEqual(
      [],
    );
    // Nothing else failed but what says when to retry (a peer taking the whole load may wait for a connection).
    expect(
      during.filter((outcome) => !succeeded(outcome) && !outcome.retryLater && outcome.kind !== 'dpop-tool'),
    ).toEqual([]);
    expect(signIns.length).toBeGreaterThan(0);
    expect(load.families.filter((family) => family.died)).toEqual([]);

    const restartedAt = Date.now();
    await Promise.all([start('as-1'), start('ps-1')]);
    await Promise.all([waitHealthy('as-1'), waitHealthy('ps-1')]);
    const backIn = await until(async () => {
      const servers = await haproxyServers();
      return servers['as-1']?.status === 'UP' && servers['ps-1']?.status === 'UP';
    }, 30_000);
    report('authorization server and protected server instance restarted', {
      'back in rotation after': seconds(backIn === undefined ? undefined : Date.now() - restartedAt),
    });
    expect(backIn).toBeDefined();
  });

  it('Redis master killed: Sentinel promotes the replica, DPoP replay store and shared rate limits keep working', async () => {
    const master = await sentinelMaster();
    expect(master).toBeDefined();
    const replica: RedisNode = master === 'redis-1' ? 'redis-2' : 'redis-1';

    const load = newLoad('redis-failover');
    await sleep(3_000);
    const killedAt = Date.now();
    await kill(master!);
    const switched = await until(async () => (await sentinelMaster()) === replica, 30_000);
    const working = await workingAgain(load, killedAt, ALL_KINDS);
    await load.stop();

    const during = load.outcomes.filter((outcome) => outcome.endedAt >= killedAt);
    const dpopRecovered = recoveredAt(
      during.filter((outcome) => outcome.kind === 'dpop-tool'),
      killedAt,
    );
    const lostRequests = lost(during);

    // DPoP's replay store on the new master: a fresh proof is accepted once, its replay (to either instance) refused,
    // and its jti is recorded there.
    const family = dpopCallers[0]!;
    const proof = await dpopProof(family.dpop!, 'POST', HA.resource, family.accessToken);
    const first = await callTool(family, 'notes_list', {}, proof);
    const replays = await Promise.all([0, 1].map(() => callTool(family, 'notes_list', {}, proof)));
    const jtis = await onRedis(replica, (redis) => redis.keys('portcullis:dpop:jti:*'));

    // Rate limits shared through the new master: 30 registrations through both instances, the limit (20 a minute
    // per address) counted once for both.
    const registrations: number[] = [];
    const remaining: string[] = [];
    for (let i = 0; i < 30; i++) {
      const response = await fetch(`${HA.issuer}/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          client_name: `rate ${i}`,
          redirect_uris: ['http://127.0.0.1/callback'],
          token_endpoint_auth_method: 'none',
        }),
      });
      await response.arrayBuffer();
      registrations.push(response.status);
      remaining.push(response.headers.get('ratelimit-remaining') ?? '-');
    }
    const counters = await onRedis(replica, (redis) => redis.keys('portcullis:rate:*register*'));

    report('Redis master killed', {
      killed: master,
      'replica promoted (Sentinel) after': seconds(switched),
      'every kind of request working again (the last failed one ended) after': seconds(
        recoveredAt(during, killedAt) - killedAt,
      ),
      'DPoP requests working again after': seconds(dpopRecovered - killedAt),
      'requests after the kill': during.length,
      'errors by status': errorsByStatus(during),
      'requests lost': lostRequests.length,
      'DPoP proof on the new master: first use, replays': `${first.status}, ${replays.map((r) => r.status).join(' ')}`,
      'rate-limit counter on the new master': counters.length === 1 ? 'yes' : 'no',
      'registrations accepted, refused (limit 20 a minute, shared)': `${registrations.filter((s) => s === 201).length}, ${registrations.filter((s) => s === 429).length}`,
    });

    expect(switched).toBeDefined();
    expect(working).toBeDefined();
    expect(dpopRecovered - killedAt).toBeLessThanOrEqual(15_000);
    expect(lostRequests).toEqual([]);
    // Only DPoP needs Redis on a request's path (fail closed, 503 with Retry-After); nothing else failed.
    expect(during.filter((outcome) => !succeeded(outcome) && outcome.kind !== 'dpop-tool')).toEqual([]);
    expect(first.status).toBe(200);
    expect(first.result?.isError).toBeFalsy();
    expect(replays.map((replay) => replay.status)).toEqual([401, 401]);
    expect(jtis.length).toBeGreaterThan(0);
    expect(registrations.filter((status) => status === 201)).toHaveLength(20);
    expect(registrations.filter((status) => status === 429)).toHaveLength(10);
    // One counter for both instances: the remaining allowance fell by one at each request, whichever answered it.
    expect(remaining).toEqual([
      ...Array.from({ length: 20 }, (_, i) => String(19 - i)),
      ...Array(10).fill('0'),
    ]);
    expect(counters).toHaveLength(1);

    // The old master comes back as a replica of the new one.
    const restartedAt = Date.now();
    await start(master!);
    const demoted = await until(
      async () => (await onRedis(master!, (redis) => redis.role()))[0] === 'slave',
      60_000,
    );
    report('Redis master killed, then restarted', {
      'back as a replica after': seconds(demoted === undefined ? undefined : Date.now() - restartedAt),
    });
    expect(demoted).toBeDefined();
  });
});
