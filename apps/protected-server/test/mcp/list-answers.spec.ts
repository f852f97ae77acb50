// Stateless `tools/list` answered again from the SDK's own answer to a request of the same shape (list-answers.ts):
// the same bytes with the request's id, and only for a request identical in everything but its id and credentials.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestAuthorizationServer, type TestAuthorizationServer } from '@portcullis/testing';
import { modernMessage, postMcp } from '../support/mcp-requests.js';
import { startProtectedServer, type ProtectedServer } from '../support/protected-server.harness.js';

describe('tools/list answered again', () => {
  let as: TestAuthorizationServer;
  let app: ProtectedServer;
  let alice: string;
  beforeAll(async () => {
    as = await startTestAuthorizationServer({ audience: 'set per token' });
    app = await startProtectedServer({ authorizationServer: as.issuer });
    alice = await mint('alice', 'notes:read');
  });
  afterAll(async () => {
    await app?.close();
    await as?.close();
  });

  const mint = (sub: string, scope: string) => as.mint({ claims: { aud: app.resource, sub, scope } });

  async function list(
    token: string,
    id: number | string,
    change: (message: ReturnType<typeof modernMessage>) => unknown = (message) => message,
    headers: Record<string, string> = {},
  ) {
    const response = await postMcp(app, change(modernMessage('tools/list', {}, id)), { token, headers });
    return {
      status: response.status,
      type: response.headers.get('content-type'),
      requestId: response.headers.get('x-request-id'),
      text: await response.text(),
    };
  }

  it("gives a request of the same shape the SDK's answer, byte for byte, with its own id", async () => {
    const first = await list(alice, 1);
    expect(first.status).toBe(200);
    const tools = (JSON.parse(first.text) as { result: { tools: { name: string }[] } }).result.tools;
    expect(tools.map((tool) => tool.name)).toContain('notes_list');
    const before = app.listAnswersGivenAgain();
    const fromHook = app.keptAnswersFromHook();
    const again = await list(alice, 'second-request');
    expect(app.listAnswersGivenAgain()).toBe(before + 1);
    // Given by the route's hook, after the authentication and before Nest's router.
    expect(app.keptAnswersFromHook()).toBe(fromHook + 1);
    expect(again).toEqual({
      status: 200,
      type: first.type,
      // The headers the app's hooks set are on the kept answer too.
      requestId: expect.stringMatching(/\S/),
      text: first.text.replace('"id":1', '"id":"second-request"'),
    });
    expect(again.requestId).not.toBe(first.requestId);
    // Another user with the same scopes: the same list (it does not depend on who asks).
    const bob = await list(await mint('bob', 'notes:read'), 7);
    expect(app.listAnswersGivenAgain()).toBe(before + 2);
    expect(bob.text).toBe(first.text.replace('"id":1', '"id":7'));
  });

  it('sends a request of any other shape to the SDK', async () => {
    await list(alice, 1);
    const before = app.listAnswersGivenAgain();
    const shapes: [string, () => Promise<{ status: number; text: string }>][] = [
      ['other scopes', async () => list(await mint('alice', 'notes:read notes:write'), 2)],
      [
        'another client in the envelope',
        () =>
          list(alice, 3, (message) => ({
            ...message,
            params: {
              _meta: {
                ...message.params._meta,
                'io.modelcontextprotocol/clientInfo': { name: 'another', version: '2' },
              },
            },
          })),
      ],
      ['another Accept', () => list(alice, 4, undefined, { accept: 'application/json' })],
      [
        'a cursor',
        () => list(alice, 5, (message) => ({ ...message, params: { ...message.params, cursor: 'x' } })),
      ],
    ];
    for (const [, send] of shapes) await send();
    expect(app.listAnswersGivenAgain()).toBe(before);
  });

  it('never keeps an answer that is not a 200 with JSON', async () => {
    const unsupported = (message: ReturnType<typeof modernMessage>) => ({
      ...message,
      params: {
        _meta: { ...message.params._meta, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' },
      },
    });
    const headers = { 'mcp-protocol-version': '2099-01-01' };
    const first = await list(alice, 1, unsupported, headers);
    expect(first.status).not.toBe(200);
    const before = app.listAnswersGivenAgain();
    const second = await list(alice, 1, unsupported, headers);
    expect({ ...second, requestId: undefined }).toEqual({ ...first, requestId: undefined });
    expect(app.listAnswersGivenAgain()).toBe(before);
  });

  it('asks for a valid token before anything, answered again or not', async () => {
    await list(alice, 1);
    const before = app.listAnswersGivenAgain();
    const response = await postMcp(app, modernMessage('tools/list', {}, 1));
    expect(response.status).toBe(401);
    // A token for another resource, on a request of a kept shape: refused by the authentication, nothing given.
    const elsewhere = await as.mint({
      claims: { aud: 'https://elsewhere.example/mcp', sub: 'alice', scope: 'notes:read' },
    });
    const refused = await list(elsewhere, 2);
    expect(refused.status).toBe(401);
    expect(refused.text).not.toContain('notes_list');
    expect(app.listAnswersGivenAgain()).toBe(before);
  });
});
