// A rolling upgrade from the previous release (docker/upgrade/previous-release.json) to this tree, under load, on the
// stack of docker/upgrade/compose.yaml (two instances of each app behind HAProxy, started on the previous release):
// - each instance in turn is taken out of rotation, stopped (SIGTERM: it answers what it holds and exits), replaced by
//   one on the new image and put back once ready; the first new instance of each app applies the new release's
//   migrations at boot while the previous release's instance still serves;
// - between the two rounds, the previous release's apps alone serve on the new schema, and are used directly: a
//   sign-in and a token, a refresh and MCP tool calls at the authorization server and through the proxy, and a user
//   deleted with the previous release's admin command (expand, deploy, contract: docs/upgrades.md);
// - no request of the 20 clients fails, every token acknowledged before the upgrade is valid after it, no refresh
//   family ends, every note acknowledged is stored once.
// Each figure is printed (and collected for docs/upgrades.md).
import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { APP_SCHEMAS, MIGRATIONS_DIR, readMigrationFolder } from '@portcullis/persistence';
import { authorizationRequest, authorize, HeadlessUserAgent, redeem, refresh } from '@portcullis/testing';
import { sleep } from '../ha/support/ha-stack.js';
import {
  aimAt,
  callTool,
  dpopKey,
  errorsByStatus,
  Load,
  newFamily,
  refreshFamily,
  signInsBegunAgain,
  succeeded,
  type Family,
  type Principal,
} from '../ha/support/load.js';
import {
  admin,
  appliedMigrations,
  haproxyStats,
  imageOf,
  putBack,
  replace,
  STACK,
  takeOut,
  upgradeState,
  withDatabase,
  type AppDatabase,
  type Instance,
  type Replacement,
} from './support/upgrade-stack.js';

const state = upgradeState();
const SCOPE = 'notes:read notes:write';
const DATABASES = {
  'authorization-server': 'authorization_server',
  'protected-server': 'protected_server',
  proxy: 'proxy',
} as const satisfies Record<keyof typeof APP_SCHEMAS, AppDatabase>;
const FIRST: readonly Instance[] = ['as-1', 'ps-1', 'proxy-1'];
const SECOND: readonly Instance[] = ['as-2', 'ps-2', 'proxy-2'];

const figures: Record<string, Record<string, unknown>> = {};

function report(scenario: string, values: Record<string, unknown>): void {
  figures[scenario] = values;
  process.stderr.write(`\n[portcullis:e2e:upgrade] ${scenario}\n`);
  for (const [name, value] of Object.entries(values)) {
    process.stderr.write(`  ${name}: ${typeof value === 'string' ? value : JSON.stringify(value)}\n`);
  }
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

function describeReplacement(step: Replacement): string {
  return (
    `out of rotation ${step.drainMs} ms${step.sessionsLeft > 0 ? ` (${step.sessionsLeft} requests still held)` : ''}, stopped ${seconds(step.stopMs)} (exit ${step.exitCode}), ` +
    `ready on ${step.image} ${seconds(step.bootMs)}, back in rotation ${seconds(step.backInMs)}`
  );
}

/** The migrations of `app` this tree ships that the previous release did not: what the upgrade applies. */
async function newMigrations(app: keyof typeof APP_SCHEMAS): Promise<string[]> {
  const names: string[] = [];
  for (const folder of [...APP_SCHEMAS[app], `own/${app}`]) {
    for (const migration of await readMigrationFolder(join(MIGRATIONS_DIR, folder))) {
      if (!(`${folder}/${migration.name}` in state.release.migrations)) names.push(migration.name);
    }
  }
  return names.sort();
}

async function migrationsByDatabase(): Promise<Record<AppDatabase, Map<string, Date>>> {
  const entries = await Promise.all(
    Object.values(DATABASES).map(async (database) => [database, await appliedMigrations(database)] as const),
  );
  return Object.fromEntries(entries) as Record<AppDatabase, Map<string, Date>>;
}

/** HTTP requests HAProxy's three frontends have received. */
async function frontendRequests(): Promise<number> {
  const stats = await haproxyStats();
  return ['authorization-server', 'protected-server', 'proxy'].reduce(
    (sum, frontend) => sum + Number(stats[`${frontend}/FRONTEND`]?.['req_tot'] ?? 0),
    0,
  );
}

/** Retries and redispatches HAProxy made to the apps' servers. */
async function retried(): Promise<number> {
  const stats = await haproxyStats();
  return Object.entries(stats)
    .filter(([name]) => /^(as|ps|proxy)\/(as|ps|proxy)-\d$/.test(name))
    .reduce((sum, [, fields]) => sum + Number(fields['wretr'] || 0) + Number(fields['wredis'] || 0), 0);
}

describe('a rolling upgrade from the previous release under load (20 clients)', () => {
  const principal: Principal = {
    client: { clientId: 'upgrade-load', redirectUri: 'http://127.0.0.1/callback' },
    user: { username: 'upgrade-user', password: randomBytes(12).toString('base64url') },
  };
  /** Who signs in on the previous release's apps on the new schema, and is deleted with its admin command. */
  const leaver = { username: 'upgrade-leaver', password: randomBytes(12).toString('base64url') };
  let refreshers: Family[];
  let writers: Family[];
  let dpopCallers: Family[];
  let witnesses: Family[];
  let acknowledgedBefore: { accessToken: string; refreshToken: string; issuer?: string }[];
  let load: Load | undefined;
  let requestsBefore: number;
  let retriedBefore: number;
  let migrationsBefore: Record<AppDatabase, Map<string, Date>>;
  const replacements: Replacement[] = [];
  let upgradeStartedAt: number;
  let leaverTokens: { authorizationServer: string; proxy: string } | undefined;

  /** A family of the proxy's: the flow goes upstream to the authorization server and back. */
  async function proxyFamily(ua: HeadlessUserAgent): Promise<Family> {
    const request = authorizationRequest(STACK.proxy, principal.client, SCOPE, STACK.resource);
    const callback = await authorize(ua, request, principal.user, principal.client);
    const answer = await redeem(STACK.proxy, principal.client, callback, request);
    if (answer.status !== 200)
      throw new Error(`proxy sign-in answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    return {
      refreshToken: answer.body['refresh_token'] as string,
      accessToken: answer.body['access_token'] as string,
      issuer: STACK.proxy,
    };
  }

  beforeAll(async () => {
    aimAt({ issuer: STACK.issuer, resource: STACK.resource });
    const started = Date.now();
    // What an operator creates once, with the previous release's admin command: the proxy's upstream client, the
    // load's client (at the authorization server and at the proxy, which keeps clients of its own), two users.
    const loadClient = [
      'clients',
      'create',
      '--name',
      'Upgrade load',
      '--client-id',
      principal.client.clientId,
      '--auth',
      'none',
      '--redirect-uri',
      principal.client.redirectUri,
    ];
    // Independent of each other: run at once (each is a Node process of its own).
    await Promise.all([
      admin(state, 'as-1', [
        'clients',
        'create',
        '--name',
        'Portcullis proxy',
        '--client-id',
        'portcullis-proxy',
        '--auth',
        'none',
        '--redirect-uri',
        `${STACK.proxy}/upstream/callback`,
      ]),
      admin(state, 'as-1', loadClient),
      admin(state, 'as-1', loadClient, STACK.databaseUrl('proxy')),
      admin(state, 'as-1', [
        'users',
        'create',
        principal.user.username,
        '--password',
        principal.user.password,
      ]),
      admin(state, 'as-1', ['users', 'create', leaver.username, '--password', leaver.password]),
    ]);

    const adminSeconds = seconds(Date.now() - started);
    // One browser: the password is checked once, then its session signs in the other families.
    const ua = new HeadlessUserAgent();
    const families = async (count: number, make: () => Promise<Family>) => {
      const made: Family[] = [];
      for (let i = 0; i < count; i++) made.push(await make());
      return made;
    };
    const asFamily = () => newFamily(principal, ua);
    refreshers = [...(await families(6, asFamily)), ...(await families(2, () => proxyFamily(ua)))];
    writers = [...(await families(5, asFamily)), ...(await families(1, () => proxyFamily(ua)))];
    dpopCallers = await families(2, async () => newFamily(principal, ua, await dpopKey()));
    // Tokens acknowledged before the upgrade, in families of their own that nothing touches until after it.
    witnesses = [...(await families(8, asFamily)), ...(await families(2, () => proxyFamily(ua)))];
    report('set up', {
      'clients and users (previous admin command, 5 runs)': adminSeconds,
      'and 26 token families (21 at the authorization server, 2 of them DPoP-bound; 5 through the proxy)':
        seconds(Date.now() - started),
      'sign-ins begun again after a 503 with Retry-After': signInsBegunAgain.count,
    });
  });

  afterAll(async () => {
    await load?.stop();
    process.stderr.write(`\n[portcullis:e2e:upgrade] figures ${JSON.stringify(figures)}\n`);
  });

  it('starts with every instance on the previous release', async () => {
    const images = await Promise.all([...FIRST, ...SECOND].map((instance) => imageOf(state, instance)));
    expect(images).toEqual([...FIRST, ...SECOND].map(() => state.previousImage));
    // One signing key per issuer: its instances were started one after the other (stack.js: the previous release
    // could make one each when started together, and tokens of one were then refused where the other's set was held).
    const signingKeys = await Promise.all(
      (['authorization_server', 'proxy'] as const).map((database) =>
        withDatabase(database, async (db) =>
          Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM signing_keys')).rows[0]?.n),
        ),
      ),
    );
    expect(signingKeys).toEqual([1, 1]);
    migrationsBefore = await migrationsByDatabase();
    for (const [app, database] of Object.entries(DATABASES) as [keyof typeof APP_SCHEMAS, AppDatabase][]) {
      // The previous release's database: none of this tree's new migrations applied yet.
      for (const name of await newMigrations(app)) expect(migrationsBefore[database].has(name)).toBe(false);
    }
    report('before the upgrade', {
      'previous release': `${state.release.version} (${state.release.commit}), image ${state.previousImage}`,
      'new release': `the working tree, image ${state.newImage}`,
      'previous release image':
        state.seconds.previousImage === null
          ? 'found'
          : `built in ${state.seconds.previousImage.toFixed(1)} s`,
      'new release image built (or found in the cache) in': `${state.seconds.newImage.toFixed(1)} s`,
      'stack healthy on the previous release in': `${state.seconds.up.toFixed(1)} s`,
    });
  });

  it("replaces the first instance of each app, which applies the new release's migrations at boot while the previous release serves", async () => {
    requestsBefore = await frontendRequests();
    retriedBefore = await retried();
    load = new Load(principal, refreshers, writers, dpopCallers, 4).start('upgrade');
    await sleep(3_000);
    for (const witness of witnesses) expect((await refreshFamily(principal, witness)).status).toBe(200);
    acknowledgedBefore = witnesses.map(({ accessToken, refreshToken, issuer }) => ({
      accessToken,
      refreshToken,
      ...(issuer ? { issuer } : {}),
    }));

    upgradeStartedAt = Date.now();
    for (const instance of FIRST) replacements.push(await replace(state, instance, state.newImage));
    const after = await migrationsByDatabase();

    const applied: Record<string, string[]> = {};
    const expected: Record<string, string[]> = {};
    for (const [app, database] of Object.entries(DATABASES) as [keyof typeof APP_SCHEMAS, AppDatabase][]) {
      applied[database] = [...after[database].keys()]
        .filter((name) => !migrationsBefore[database].has(name))
        .sort();
      expected[database] = await newMigrations(app);
    }
    const failed = load.outcomes.filter((outcome) => !succeeded(outcome));
    report('first instance of each app replaced', {
      ...Object.fromEntries(replacements.map((step) => [step.instance, describeReplacement(step)])),
      'migrations the first new instances applied at boot': applied,
      'requests so far, failed': `${load.outcomes.length}, ${failed.length}`,
      'errors by status': errorsByStatus(load.outcomes),
    });

    expect(applied).toEqual(expected);
    // Each applied by the first new instance of its app, while that app's previous instance still served.
    for (const [database, names] of Object.entries(applied) as [AppDatabase, string[]][]) {
      for (const name of names)
        expect(after[database].get(name)!.getTime()).toBeGreaterThanOrEqual(upgradeStartedAt - 1_000);
    }
    expect(replacements.map((step) => step.exitCode)).toEqual([0, 0, 0]);
    expect(failed).toEqual([]);
  });

  it("runs the previous release's apps on the new schema: sign-in, token, refresh, MCP tools, a user deleted with its admin command", async () => {
    expect(load).toBeDefined();
    // The new instances out of rotation: the previous release alone serves the load on the new schema meanwhile.
    const outAt = Date.now();
    const steps: Record<string, string> = {};
    let last = outAt;
    const step = (name: string) => {
      steps[name] = seconds(Date.now() - last);
      last = Date.now();
    };
    await Promise.all(FIRST.map((instance) => takeOut(instance)));
    step('new instances out of rotation');
    try {
      const asBase = STACK.instances['as-2'];
      const mcpUrl = `${STACK.instances['ps-2']}/mcp`;
      const title = `previous release on the new schema ${randomUUID()}`;

      // The authorization server's previous instance, directly: every page of the flow and the token endpoint.
      const ua = new HeadlessUserAgent();
      const request = authorizationRequest(asBase, principal.client, SCOPE, STACK.resource);
      const callback = await authorize(ua, request, leaver, principal.client);
      const token = await redeem(asBase, principal.client, callback, request);
      const refreshed = await refresh(asBase, principal.client, String(token.body['refresh_token']));
      const family: Family = {
        accessToken: String(refreshed.body['access_token']),
        refreshToken: String(refreshed.body['refresh_token']),
      };
      const created = await callTool(family, 'notes_create', { title }, undefined, mcpUrl);
      const listed = await callTool(family, 'notes_list', {}, undefined, mcpUrl);

      // The proxy's previous instance, directly: its pages and token endpoint; the flow goes upstream to the
      // authorization server and back to the proxy's callback through HAProxy, where only previous instances serve.
      step('authorization server and protected server');
      const proxyBase = STACK.instances['proxy-2'];
      const proxyUa = new HeadlessUserAgent();
      const proxyRequest = authorizationRequest(proxyBase, principal.client, SCOPE, STACK.resource);
      const proxyCallback = await authorize(proxyUa, proxyRequest, leaver, principal.client);
      const proxyToken = await redeem(proxyBase, principal.client, proxyCallback, proxyRequest);
      const proxyRefreshed = await refresh(
        proxyBase,
        principal.client,
        String(proxyToken.body['refresh_token']),
      );
      const proxyCall = await callTool(
        { accessToken: String(proxyRefreshed.body['access_token']), refreshToken: '' },
        'notes_list',
        {},
        undefined,
        mcpUrl,
      );

      // What the previous proxy wrote for that sign-in in the tables the new migrations changed.
      step('proxy');
      const leaverId = await withDatabase('authorization_server', async (db) => {
        const { rows } = await db.query<{ id: string }>('SELECT id FROM users WHERE username = $1', [
          leaver.username,
        ]);
        return rows[0]?.id;
      });
      const proxyUser = await withDatabase('proxy', async (db) => {
        const { rows } = await db.query<{ id: string; username: string }>(
          `SELECT u.id, u.username FROM users u JOIN upstream_identities i ON i.user_id = u.id WHERE i.subject = $1`,
          [leaverId],
        );
        return rows[0];
      });
      const proxyRows = async () =>
        withDatabase('proxy', async (db) => {
          const count = async (sql: string) =>
            Number((await db.query<{ n: string }>(sql, [proxyUser?.id])).rows[0]?.n);
          return {
            users: await count('SELECT count(*) AS n FROM users WHERE id = $1'),
            identities: await count('SELECT count(*) AS n FROM upstream_identities WHERE user_id = $1'),
            vault: await count('SELECT count(*) AS n FROM upstream_tokens WHERE user_id = $1'),
          };
        });
      const storedByPrevious = await proxyRows();

      // The previous release's admin command deletes the user from both databases.
      step('rows read');
      const timed = async (run: Promise<string>) => {
        const started = Date.now();
        const output = await run;
        return `${output} [${seconds(Date.now() - started)}]`;
      };
      const [deletedHere, deletedAtProxy] = await Promise.all([
        timed(admin(state, 'as-2', ['users', 'delete', leaver.username])),
        timed(
          admin(
            state,
            'as-2',
            ['users', 'delete', proxyUser?.username ?? '(no proxy user)'],
            STACK.databaseUrl('proxy'),
          ),
        ),
      ]);
      step('users delete twice (previous admin)');
      const leftHere = await withDatabase('authorization_server', async (db) => ({
        users: Number(
          (await db.query<{ n: string }>('SELECT count(*) AS n FROM users WHERE id = $1', [leaverId])).rows[0]
            ?.n,
        ),
        liveSessions: Number(
          (
            await db.query<{ n: string }>(
              'SELECT count(*) AS n FROM login_sessions WHERE user_id = $1 AND revoked_at IS NULL',
              [leaverId],
            )
          ).rows[0]?.n,
        ),
      }));
      const leftAtProxy = await proxyRows();
      const refusedHere = await refresh(asBase, principal.client, family.refreshToken);
      const refusedAtProxy = await refresh(
        proxyBase,
        principal.client,
        String(proxyRefreshed.body['refresh_token']),
      );
      leaverTokens = {
        authorizationServer: family.refreshToken,
        proxy: String(proxyRefreshed.body['refresh_token']),
      };

      const origins = (agent: HeadlessUserAgent) => [
        ...new Set(agent.history.map((entry) => new URL(entry.url).origin)),
      ];
      report("the previous release's apps on the new schema", {
        'authorization server (as-2, directly): sign-in, token, refresh': `${callback.searchParams.has('code') ? 'code' : 'no code'}, ${token.status}, ${refreshed.status}`,
        'its pages were served by': origins(ua),
        'protected server (ps-2, directly): notes_create, notes_list': `${created.status}${created.result?.isError ? ' (tool error)' : ''}, ${listed.status}`,
        'proxy (proxy-2, directly): sign-in, token, refresh, MCP call with its token': `${proxyCallback.searchParams.has('code') ? 'code' : 'no code'}, ${proxyToken.status}, ${proxyRefreshed.status}, ${proxyCall.status}`,
        'the proxy flow went through': origins(proxyUa),
        "the proxy's rows for that sign-in (user, upstream identity, vault)": storedByPrevious,
        'users delete (previous admin), authorization server': deletedHere,
        'users delete (previous admin), proxy': deletedAtProxy,
        'left after the deletion (authorization server, proxy)': {
          ...leftHere,
          ...Object.fromEntries(Object.entries(leftAtProxy).map(([k, v]) => [`proxy ${k}`, v])),
        },
        "the deleted user's refresh tokens (authorization server, proxy)": `${refusedHere.status} ${String(refusedHere.body['error'])}, ${refusedAtProxy.status} ${String(refusedAtProxy.body['error'])}`,
      });

      expect(ua.history.every((entry) => entry.url.startsWith(asBase))).toBe(true);
      expect(callback.searchParams.get('code')).toBeTruthy();
      expect(token.status).toBe(200);
      expect(refreshed.status).toBe(200);
      expect(created.status).toBe(200);
      expect(created.result?.isError).toBeFalsy();
      expect(listed.result?.content?.map((part) => part.text ?? '').join('')).toContain(title);
      expect(proxyUa.history.some((entry) => entry.url.startsWith(proxyBase))).toBe(true);
      expect(proxyToken.status).toBe(200);
      expect(proxyRefreshed.status).toBe(200);
      expect(proxyCall.status).toBe(200);
      expect(proxyCall.result?.isError).toBeFalsy();
      expect(proxyUser).toBeDefined();
      expect(storedByPrevious).toEqual({ users: 1, identities: 1, vault: 1 });
      expect(deletedHere).toContain(`deleted user ${leaver.username}`);
      expect(deletedAtProxy).toContain(`deleted user ${proxyUser?.username}`);
      expect(leftHere).toEqual({ users: 0, liveSessions: 0 });
      expect(leftAtProxy).toEqual({ users: 0, identities: 0, vault: 0 });
      expect([refusedHere.status, refusedHere.body['error']]).toEqual([400, 'invalid_grant']);
      expect([refusedAtProxy.status, refusedAtProxy.body['error']]).toEqual([400, 'invalid_grant']);
      step('what is left, checked');
    } finally {
      await Promise.all(FIRST.map((instance) => putBack(instance)));
      step('new instances back in rotation');
      report('previous release alone on the new schema', {
        for: seconds(Date.now() - outAt),
        steps,
        'errors by status so far': errorsByStatus(load!.outcomes),
      });
    }
    expect(load!.outcomes.filter((outcome) => !succeeded(outcome))).toEqual([]);
  });

  it('replaces the second instances: no request failed, every token acknowledged before is valid, no refresh family ended', async () => {
    expect(load).toBeDefined();
    const second: Replacement[] = [];
    for (const instance of SECOND) second.push(await replace(state, instance, state.newImage));
    replacements.push(...second);
    const upgradeEndedAt = Date.now();
    await sleep(3_000);
    await load!.stop();
    const requests = (await frontendRequests()) - requestsBefore;
    const retries = (await retried()) - retriedBefore;

    const images = await Promise.all([...FIRST, ...SECOND].map((instance) => imageOf(state, instance)));
    const witnessRefreshes = await Promise.all(
      witnesses.map(async (witness) => (await refreshFamily(principal, witness)).status),
    );
    const witnessCalls = await Promise.all(
      acknowledgedBefore.map(async ({ accessToken }) => {
        const answer = await callTool({ accessToken, refreshToken: '' }, 'notes_list', {});
        return answer.status === 200 && answer.result !== undefined && !answer.result.isError;
      }),
    );
    const leaverRefused = leaverTokens
      ? await Promise.all([
          refresh(STACK.issuer, principal.client, leaverTokens.authorizationServer),
          refresh(STACK.proxy, principal.client, leaverTokens.proxy),
        ])
      : [];
    const stored = await withDatabase('protected_server', async (db) => {
      const { rows } = await db.query<{ title: string; copies: string }>(
        'SELECT title, count(*) AS copies FROM notes WHERE title = ANY($1) GROUP BY title',
        [load!.acknowledged],
      );
      return rows;
    });
    const outcomes = load!.outcomes;
    const byKind: Record<string, number> = {};
    for (const outcome of outcomes) byKind[outcome.kind] = (byKind[outcome.kind] ?? 0) + 1;
    const died = load!.families.filter((family) => family.died).map((family) => family.died);
    const replacing = replacements.reduce((sum, step) => sum + step.totalMs, 0);

    report('rolling upgrade', {
      ...Object.fromEntries(second.map((step) => [step.instance, describeReplacement(step)])),
      'six replacements, one after the other': seconds(replacing),
      'first instance out to last back in (the checks between the rounds included)': seconds(
        upgradeEndedAt - upgradeStartedAt,
      ),
      'requests of the 20 clients (a sign-in: one flow)': `${outcomes.length} ${JSON.stringify(byKind)}`,
      'HTTP requests through HAProxy': requests,
      'errors by status': errorsByStatus(outcomes),
      'requests HAProxy retried or sent to the peer': retries,
      'notes acknowledged, stored once': `${load!.acknowledged.length}, ${stored.filter((row) => row.copies === '1').length}`,
      'tokens acknowledged before the upgrade, valid after (refresh, access)': `${witnessRefreshes.filter((status) => status === 200).length}/${witnesses.length}, ${witnessCalls.filter(Boolean).length}/${witnesses.length}`,
      'refresh families ended': died.length,
      "the deleted user's refresh tokens at the new release": leaverRefused
        .map((answer) => `${answer.status} ${String(answer.body['error'])}`)
        .join(', '),
    });

    expect(images).toEqual([...FIRST, ...SECOND].map(() => state.newImage));
    expect(second.map((step) => step.exitCode)).toEqual([0, 0, 0]);
    expect(outcomes.filter((outcome) => !succeeded(outcome))).toEqual([]);
    expect(Object.keys(byKind).sort()).toEqual(['dpop-tool', 'refresh', 'sign-in', 'tool']);
    expect(witnessRefreshes).toEqual(witnesses.map(() => 200));
    expect(witnessCalls).toEqual(witnesses.map(() => true));
    expect(died).toEqual([]);
    expect(load!.acknowledged.length).toBeGreaterThan(0);
    expect(stored.map((row) => [row.title, row.copies]).sort()).toEqual(
      load!.acknowledged.map((title) => [title, '1']).sort(),
    );
    expect(leaverRefused.map((answer) => [answer.status, answer.body['error']])).toEqual([
      [400, 'invalid_grant'],
      [400, 'invalid_grant'],
    ]);
  });
});
