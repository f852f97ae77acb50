import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  Client,
  InsufficientScopeError,
  StreamableHTTPClientTransport,
  type ClientOptions,
} from '@modelcontextprotocol/client';
import { legacyHeaders, postMcp } from '../support/mcp-requests.js';
import { startProtectedServer, type ProtectedServer } from '../support/protected-server.harness.js';
import { startTestAuthorizationServer, type TestAuthorizationServer } from '@portcullis/testing';

const ERAS: [string, ClientOptions][] = [
  ['2025 (session-based)', {}],
  ['2026-07-28 (stateless)', { versionNegotiation: { mode: { pin: '2026-07-28' } } }],
];

interface Note {
  id: string;
  title: string;
}

const textOf = (result: unknown) => (result as { content: { text: string }[] }).content[0]!.text;

describe('the official MCP client SDK against the protected server', () => {
  let as: TestAuthorizationServer;
  let app: ProtectedServer;

  beforeAll(async () => {
    as = await startTestAuthorizationServer({ audience: 'set per token' });
    app = await startProtectedServer({ authorizationServer: as.issuer });
  });
  afterAll(async () => {
    await app?.close();
    await as?.close();
  });

  async function connect(options: ClientOptions, token: () => string) {
    const client = new Client({ name: 'portcullis-tests', version: '1.0.0' }, options);
    const transport = new StreamableHTTPClientTransport(new URL(app.mcpUrl), {
      authProvider: { token: async () => token() },
      onInsufficientScope: 'throw',
    });
    await client.connect(transport);
    return { client, transport };
  }

  it.each(ERAS)('connects in the %s era, lists the tools and calls them', async (era, options) => {
    const token = await as.mint({ claims: { aud: app.resource, sub: `user-${era}`, scope: 'notes' } });
    const { client, transport } = await connect(options, () => token);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual([
        'notes_create',
        'notes_delete',
        'notes_get',
        'notes_list',
      ]);

      const created = JSON.parse(
        textOf(await client.callTool({ name: 'notes_create', arguments: { title: `written in ${era}` } })),
      ) as Note;
      const listed = JSON.parse(
        textOf(await client.callTool({ name: 'notes_list', arguments: {} })),
      ) as Note[];
      expect(listed.map((note) => note.id)).toEqual([created.id]);

      const resource = await client.readResource({ uri: `notes://${created.id}` });
      expect(JSON.parse((resource.contents[0] as { text: string }).text)).toMatchObject({
        title: `written in ${era}`,
      });

      const deleted = await client.callTool({ name: 'notes_delete', arguments: { id: created.id } });
      expect(deleted.isError).toBeFalsy();
      expect(await app.database.database.prisma.note.count({ where: { owner: `user-${era}` } })).toBe(0);

      // The 2025 era runs in a session; the 2026-07-28 era has none.
      if (options.versionNegotiation) expect(transport.sessionId).toBeUndefined();
      else expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    } finally {
      await client.close();
    }
  });

  it.each(ERAS)(
    'surfaces the step-up challenge in the %s era as InsufficientScopeError',
    async (_era, options) => {
      const token = await as.mint({ claims: { aud: app.resource, scope: 'notes:read' } });
      const { client } = await connect(options, () => token);
      try {
        const failure = await client
          .callTool({ name: 'notes_create', arguments: { title: 'x' } })
          .catch((error: unknown) => error);
        expect(failure).toBeInstanceOf(InsufficientScopeError);
        expect(String((failure as Error).message)).toContain('notes:write');
      } finally {
        await client.close();
      }
    },
  );

  it('keeps a 2025-era session across a token change of the same user, checking each token', async () => {
    let token = await as.mint({ claims: { aud: app.resource, sub: 'stepper', scope: 'notes:read' } });
    const { client, transport } = await connect({}, () => token);
    try {
      const sessionId = transport.sessionId;
      await expect(
        client.callTool({ name: 'notes_create', arguments: { title: 'before' } }),
      ).rejects.toBeInstanceOf(InsufficientScopeError);
      // Step-up: a new token for the same user with a wider scope, in the same session.
      token = await as.mint({ claims: { aud: app.resource, sub: 'stepper', scope: 'notes' } });
      const created = await client.callTool({ name: 'notes_create', arguments: { title: 'after step-up' } });
      expect(created.isError).toBeFalsy();
      expect(transport.sessionId).toBe(sessionId);
      expect(await app.database.database.prisma.note.count({ where: { owner: 'stepper' } })).toBe(1);

      // The session does not outlive its token's validity: an expired token in it is refused.
      token = await as.mint({ claims: { aud: app.resource, sub: 'stepper', scope: 'notes', exp: 1_000 } });
      const expired = await postMcp(
        app,
        { jsonrpc: '2.0', id: 9, method: 'ping' },
        {
          token,
          headers: legacyHeaders(sessionId!),
        },
      );
      expect(expired.status).toBe(401);
    } finally {
      await client.close();
    }
  });

  it('ends a 2025-era session on DELETE, after which its id is unknown', async () => {
    const token = await as.mint({ claims: { aud: app.resource, sub: 'leaver', scope: 'notes' } });
    const { client, transport } = await connect({}, () => token);
    const sessionId = transport.sessionId!;
    await transport.terminateSession();
    await client.close();
    const after = await postMcp(
      app,
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { token, headers: legacyHeaders(sessionId) },
    );
    expect(after.status).toBe(404);
  });
});
