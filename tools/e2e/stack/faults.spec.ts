import { FormUserAgent } from '@portcullis/testing';
import { describe, expect, it } from '@jest/globals';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  createAuthorizedFetch,
  mcpTransportOptions,
  type AuthorizedFetch,
  type UserAgent,
} from '@portcullis/client';
import { countingFetch } from '../test/support/client-helpers.js';
import {
  STACK,
  docker,
  restartService,
  sleep,
  startService,
  statusOf,
  stopService,
  waitHealthy,
  withAppDatabase,
  type AppService,
} from './support/compose-stack.js';

const APPS = Object.keys(STACK.apps) as AppService[];

async function connect(authorizedFetch: AuthorizedFetch): Promise<Client> {
  const client = new Client({ name: 'portcullis-e2e-faults', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(STACK.resource), mcpTransportOptions(authorizedFetch)),
  );
  return client;
}

/** How many times Docker has restarted each app container: a service that recovers by itself keeps these. */
async function restartCounts(): Promise<string[]> {
  return Promise.all(
    APPS.map((app) =>
      docker('inspect', '--format', '{{.RestartCount}} {{.State.StartedAt}}', `portcullis-e2e-${app}-1`),
    ),
  );
}

/** The key IDs the authorization server publishes at its `jwks_uri`. */
async function publishedKeyIds(): Promise<string[]> {
  const metadata = (await (await fetch(`${STACK.issuer}/.well-known/oauth-authorization-server`)).json()) as {
    jwks_uri: string;
  };
  const jwks = (await (await fetch(metadata.jwks_uri)).json()) as { keys: { kid: string }[] };
  return jwks.keys.map((key) => key.kid).sort();
}

/** A response body that is a stack trace, or mentions one: what an error must never show a client. */
const STACK_TRACE = /\bat [\w.<>]+ \(|node:internal|\.(?:js|ts):\d+:\d+|\bError: /;

describe('faults in the compose stack', () => {
  it('completes a flow whose authorization server restarted between the authorization response and the token request', async () => {
    // Tokens issued before the restart, by an earlier authorization.
    const earlierCounts: Record<string, number> = {};
    const earlier = createAuthorizedFetch({
      resource: STACK.resource,
      userAgent: new FormUserAgent(STACK.user),
      fetch: countingFetch(earlierCounts),
    });
    const earlierMcp = await connect(earlier);
    const keysBefore = await publishedKeyIds();

    // The browser comes back with the code; the authorization server restarts before the client redeems it.
    const browser = new FormUserAgent(STACK.user);
    let restartedAt = 0;
    const restartingUserAgent: UserAgent = {
      redirectUris: browser.redirectUris,
      begin: async () => {
        const session = await browser.begin();
        return {
          ...session,
          authorize: async (url) => {
            const callback = await session.authorize(url);
            const restarting = Date.now();
            await restartService('authorization-server');
            await waitHealthy('authorization-server');
            restartedAt = Date.now();
            process.stderr.write(
              `[portcullis:e2e:stack] authorization-server restarted and healthy in ${restartedAt - restarting} ms, between the authorization response and the token request\n`,
            );
            return callback;
          },
        };
      },
    };
    const counts: Record<string, number> = {};
    const authorizedFetch = createAuthorizedFetch({
      resource: STACK.resource,
      userAgent: restartingUserAgent,
      fetch: countingFetch(counts),
    });
    const mcp = await connect(authorizedFetch);
    try {
      expect(restartedAt).toBeGreaterThan(0);
      expect((await mcp.callTool({ name: 'notes_list', arguments: {} })).isError).toBeFalsy();
      expect(counts).toEqual({ authorization_code: 1 });
      const clientId = (await authorizedFetch.tokens())?.clientId;

      // The restarted server signs with the keys it had (kept in its database), so the earlier token still verifies
      // at the protected server, with no new token.
      expect(await publishedKeyIds()).toEqual(keysBefore);
      expect((await earlierMcp.callTool({ name: 'notes_list', arguments: {} })).isError).toBeFalsy();
      expect(earlierCounts).toEqual({ authorization_code: 1 });

      // Whole, not half-written: one grant, its code redeemed once, one access token, one live refresh token.
      await withAppDatabase('authorization_server', async (db) => {
        const grants = await db.query<{ id: string; revoked_at: Date | null }>(
          'SELECT id, revoked_at FROM grants WHERE client_id = $1',
          [clientId],
        );
        expect(grants.rows).toHaveLength(1);
        expect(grants.rows[0]?.revoked_at).toBeNull();
        const grantId = grants.rows[0]!.id;
        const codes = await db.query('SELECT consumed_at FROM authorization_codes WHERE grant_id = $1', [
          grantId,
        ]);
        expect(codes.rows).toEqual([{ consumed_at: expect.any(Date) }]);
        const tokens = await db.query('SELECT revoked_at FROM access_tokens WHERE grant_id = $1', [grantId]);
        expect(tokens.rows).toEqual([{ revoked_at: null }]);
        const refresh = await db.query('SELECT consumed_at FROM refresh_tokens WHERE grant_id = $1', [
          grantId,
        ]);
        expect(refresh.rows).toEqual([{ consumed_at: null }]);
      });
    } finally {
      await mcp.close();
      await earlierMcp.close();
    }
  });

  it('rides out a PostgreSQL restart under light load: not ready within 2 s, ready again within 5 s, nothing lost', async () => {
    let clockOffset = 0;
    const counts: Record<string, number> = {};
    const authorizedFetch = createAuthorizedFetch({
      resource: STACK.resource,
      userAgent: new FormUserAgent(STACK.user),
      fetch: countingFetch(counts),
      now: () => Date.now() + clockOffset,
    });
    const mcp = await connect(authorizedFetch);
    const restartsBefore = await restartCounts();

    // Light load: two writers of notes at the protected server, one token endpoint caller at the authorization server.
    let loading = true;
    const acknowledged: string[] = [];
    const attempted: string[] = [];
    const errorBodies: { status: number; body: string }[] = [];
    const tokenStatuses = new Set<number>();
    const writer = async (name: string) => {
      for (let i = 0; loading; i++) {
        const title = `pg-restart ${name} ${i} ${Date.now()}`;
        attempted.push(title);
        try {
          const result = await mcp.callTool({ name: 'notes_create', arguments: { title } });
          if (!result.isError) acknowledged.push(title);
          else if (STACK_TRACE.test(JSON.stringify(result)))
            errorBodies.push({ status: 200, body: JSON.stringify(result) });
        } catch (error) {
          const message = String((error as Error)?.message ?? error);
          if (STACK_TRACE.test(message)) errorBodies.push({ status: -1, body: message });
        }
        await sleep(50);
      }
    };
    const tokenCaller = async () => {
      while (loading) {
        const response = await fetch(`${STACK.issuer}/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            grant_type: 'authorization_code',
            code: 'not-a-code',
            client_id: 'nobody',
            code_verifier: 'x'.repeat(43),
          }),
          signal: AbortSignal.timeout(5_000),
        }).catch(() => undefined);
        if (response) {
          tokenStatuses.add(response.status);
          const body = await response.text();
          if (response.status >= 500) errorBodies.push({ status: response.status, body });
        }
        // Light: well under the token endpoint's rate limit, which the other tests' clients share (one address).
        await sleep(250);
      }
    };
    // Readiness of each app, sampled every 100 ms.
    const readiness: { app: AppService; at: number; status: number }[] = [];
    const poller = async () => {
      while (loading) {
        const at = Date.now();
        const statuses = await Promise.all(APPS.map((app) => statusOf(`${STACK.apps[app]}/readyz`)));
        APPS.forEach((app, index) => readiness.push({ app, at, status: statuses[index]! }));
        await sleep(100);
      }
    };
    const load = [writer('a'), writer('b'), tokenCaller(), poller()];

    await sleep(1_000);
    await stopService('postgres');
    const down = Date.now();
    await sleep(3_000);
    await startService('postgres');
    await waitHealthy('postgres', 30_000);
    const back = Date.now();
    // Serve again: every app ready, within 5 s of PostgreSQL being back.
    let recovered = 0;
    while (Date.now() - back < 5_000) {
      const statuses = await Promise.all(APPS.map((app) => statusOf(`${STACK.apps[app]}/readyz`)));
      if (statuses.every((status) => status === 200)) {
        recovered = Date.now();
        break;
      }
      await sleep(100);
    }
    await sleep(1_000);
    loading = false;
    await Promise.all(load);

    const notReadyAfter = Object.fromEntries(
      APPS.map((app) => {
        const first = readiness.find(
          (sample) => sample.app === app && sample.at >= down && sample.status === 503,
        );
        return [app, first ? first.at - down : undefined];
      }),
    );
    process.stderr.write(
      `[portcullis:e2e:stack] postgres stopped for 3 s under load: not ready after ${JSON.stringify(notReadyAfter)} ms; ` +
        `all ready ${recovered ? recovered - back : 'never'} ms after postgres was healthy again; ` +
        `${acknowledged.length} of ${attempted.length} notes acknowledged; token endpoint statuses ${[...tokenStatuses].sort().join(', ')}\n`,
    );
    try {
      // Not ready within 2 s of PostgreSQL going away, each app.
      for (const app of APPS) {
        expect({ app, notReadyAfter: notReadyAfter[app] }).toEqual({
          app,
          notReadyAfter: expect.any(Number),
        });
        expect(notReadyAfter[app]).toBeLessThanOrEqual(2_000);
      }
      expect(recovered).toBeGreaterThan(0);
      expect(await restartCounts()).toEqual(restartsBefore);

      // Errors in the protocol's own format, never a stack trace.
      expect(
        errorBodies.filter(
          (entry) => entry.status !== 200 && entry.status !== -1 && STACK_TRACE.test(entry.body),
        ),
      ).toEqual([]);
      expect(errorBodies.filter((entry) => entry.status === 200 || entry.status === -1)).toEqual([]);
      for (const { body } of errorBodies) {
        expect(JSON.parse(body)).toMatchObject({
          error: expect.stringMatching(/^(server_error|temporarily_unavailable)$/),
        });
      }
      expect([...tokenStatuses].every((status) => [400, 401, 500, 503].includes(status))).toBe(true);
      expect(tokenStatuses.has(400) || tokenStatuses.has(401)).toBe(true);

      // Nothing lost: every acknowledged note is stored exactly once; nothing was stored that was not attempted.
      expect(acknowledged.length).toBeGreaterThan(0);
      await withAppDatabase('protected_server', async (db) => {
        const stored = await db.query<{ title: string }>(
          "SELECT title FROM notes WHERE title LIKE 'pg-restart %'",
        );
        const titles = stored.rows.map((row) => row.title);
        for (const title of acknowledged) expect(titles.filter((stored) => stored === title)).toHaveLength(1);
        expect(titles.every((title) => attempted.includes(title))).toBe(true);
      });

      // And the service is whole: a tool call and a refresh with rotation work as before the outage.
      expect((await mcp.callTool({ name: 'notes_list', arguments: {} })).isError).toBeFalsy();
      clockOffset = 3_600_000;
      expect((await mcp.callTool({ name: 'notes_list', arguments: {} })).isError).toBeFalsy();
      expect(counts['refresh_token']).toBe(1);
    } finally {
      await mcp.close();
    }
  });
});
