import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { freePort } from '@portcullis/testing';
import { bearerChallengeOf, callTool, countNotes, toolJson } from '../support/mcp-requests.js';
import {
  newIntrospectionClient,
  startPortcullisAuthorizationServer,
  type PortcullisAuthorizationServer,
} from '../support/portcullis-authorization-server.js';
import { startProtectedServer, type ProtectedServer } from '../support/protected-server.harness.js';

/** How long past the TTL a revoked token may still pass on a loaded machine before the test gives up. */
const MARGIN_MS = 4_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a token revoked at the authorization server (RFC 7009), with TOKEN_VALIDATION=introspection,', () => {
  let as: PortcullisAuthorizationServer;
  let uncached: ProtectedServer;
  let cached: ProtectedServer;

  beforeAll(async () => {
    // A protected server contacts its authorization server only when a token arrives: both boot first, naming the
    // authorization server's issuer, which then starts listing their resources.
    const asPort = await freePort();
    const issuer = `http://localhost:${asPort}`;
    // Each protected server is the resource server of its own resource, with its own introspection credentials.
    const clients = [
      newIntrospectionClient('protected-server-a'),
      newIntrospectionClient('protected-server-b'),
    ] as const;
    const start = (ttl: string, introspectionClient: (typeof clients)[number]) =>
      startProtectedServer({
        authorizationServer: issuer,
        env: {
          TOKEN_VALIDATION: 'introspection',
          TOKEN_CACHE_TTL: ttl,
          INTROSPECTION_CLIENT_ID: introspectionClient.id,
          INTROSPECTION_CLIENT_SECRET: introspectionClient.secret,
        },
      });
    uncached = await start('0', clients[0]);
    cached = await start('1', clients[1]);
    as = await startPortcullisAuthorizationServer({
      port: asPort,
      resources: [uncached.resource, cached.resource],
      introspectionClients: [
        { ...clients[0], resource: uncached.resource },
        { ...clients[1], resource: cached.resource },
      ],
    });
  });
  afterAll(async () => {
    await uncached?.close();
    await cached?.close();
    await as?.close();
  });

  /** Creating a note: accepted, it adds one; refused, it adds none. */
  const createNote = (app: ProtectedServer, token: string) =>
    callTool(app, token, 'notes_create', { title: 'n' });

  async function expectRefused(response: Response): Promise<void> {
    expect(response.status).toBe(401);
    expect(response.headers.get('location')).toBeNull();
    expect(bearerChallengeOf(response).params['error']).toBe('invalid_token');
  }

  it('is refused on the very next request with TOKEN_CACHE_TTL=0', async () => {
    const token = await as.issueAccessToken(uncached.resource);
    await toolJson(await createNote(uncached, token));
    await toolJson(await createNote(uncached, token));
    const notes = await countNotes(uncached);
    expect(notes).toBe(2);

    await as.revoke(token);

    await expectRefused(await createNote(uncached, token));
    expect(await countNotes(uncached)).toBe(notes);
  });

  it('is accepted until revoked, and refused within TOKEN_CACHE_TTL=1 after', async () => {
    const token = await as.issueAccessToken(cached.resource);
    await toolJson(await createNote(cached, token)); // accepted, and its verdict cached
    const notes = await countNotes(cached);
    expect(notes).toBe(1);

    await as.revoke(token);
    const deadline = Date.now() + 1_000 + MARGIN_MS;
    let response = await callTool(cached, token, 'notes_list');
    while (response.status === 200 && Date.now() < deadline) {
      await response.body?.cancel();
      await sleep(100);
      response = await callTool(cached, token, 'notes_list');
    }

    await expectRefused(response);
    await expectRefused(await createNote(cached, token));
    expect(await countNotes(cached)).toBe(notes);
  });
});
