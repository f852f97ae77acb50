import { FormUserAgent } from '@portcullis/testing';
// Several `portcullis` processes over one token store (several agent sessions on one machine) that all find the
// access token expired: they take turns on the store's lock and re-read it in their turn, so exactly one refresh
// request reaches the authorization server between them, and its strict reuse detection (RFC 9700 4.14.2) never
// fires. Real processes, the built authorization server and protected server.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createAuthorizedFetch, FileTokenStore } from '@portcullis/client';
import { runCli as run } from './support/cli.js';
import { startStack, type Stack } from './support/stack.js';

function runCli(args: string[], home: string) {
  return run(args, { PORTCULLIS_HOME: home });
}

/** The token endpoint requests the authorization server has logged so far. */
function tokenRequests(stack: Stack): number {
  return stack.authorizationServer
    .stdout()
    .split('\n')
    .filter((line) => line.includes('"msg":"request completed"') && line.includes('"url":"/token"')).length;
}

describe('portcullis processes sharing one token store', () => {
  let stack: Stack;
  let clientId: string;
  let home: string;
  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'portcullis-shared-store-'));
    stack = await startStack({
      before: async (admin) => {
        const created = await admin(
          'clients',
          'create',
          '--name',
          'Shared store client',
          '--redirect-uri',
          'http://127.0.0.1/callback',
          '--json',
        );
        expect(created.code).toBe(0);
        clientId = (JSON.parse(created.stdout) as { client_id: string }).client_id;
      },
    });
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
    await rm(home, { recursive: true, force: true });
  });

  it('make one refresh request between five of them when the access token has expired', async () => {
    // Sign in once through the real pages, into the store the command line reads.
    const store = new FileTokenStore({ path: join(home, 'tokens.json'), env: {} });
    const authorizedFetch = createAuthorizedFetch({
      resource: stack.resource,
      userAgent: new FormUserAgent(stack.user),
      clientCredentials: { clientId, issuer: stack.issuer },
      store,
    });
    const signedIn = await authorizedFetch(stack.resource, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      }),
    });
    expect(signedIn.status).toBe(200);
    const [tokens] = await store.findTokens(stack.resource);
    expect(tokens?.refreshToken).toBeDefined();
    // Every process now finds the access token expired.
    await store.saveTokens({ ...tokens!, expiresAt: Date.now() - 1_000 });
    const before = tokenRequests(stack);

    const runs = await Promise.all(
      Array.from({ length: 5 }, () =>
        runCli(
          ['call', stack.resource, 'notes_list', '{}', '--client-id', clientId, '--issuer', stack.issuer],
          home,
        ),
      ),
    );

    for (const run of runs) expect({ code: run.code, stderr: run.stderr }).toMatchObject({ code: 0 });
    expect(runs.filter((run) => run.stderr.includes('Access token refreshed'))).toHaveLength(1);
    expect(tokenRequests(stack) - before).toBe(1);
    // The family lives on: the stored refresh token still refreshes.
    const [after] = await store.findTokens(stack.resource);
    expect(after?.refreshToken).not.toBe(tokens!.refreshToken);
    await store.saveTokens({ ...after!, expiresAt: Date.now() - 1_000 });
    const again = await runCli(
      ['call', stack.resource, 'notes_list', '{}', '--client-id', clientId, '--issuer', stack.issuer],
      home,
    );
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('Access token refreshed');
  });
});
