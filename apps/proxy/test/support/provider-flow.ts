// The two end-to-end checks every provider preset passes against its fake: the official MCP client signs in through
// the proxy and calls the tools; a person the allowed-user rules refuse gets the refusal page and nothing is stored.
import { expect } from '@jest/globals';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createAuthorizedFetch, mcpTransportOptions } from '@portcullis/client';
import { HeadlessUserAgent } from '@portcullis/testing';
import { decodeJwt } from 'jose';
import { PersonAtBrowser, walk, type Walk } from './person.js';
import type { ProtectedServer } from './protected-server.js';
import { authorizationRequest, type ProxyFixture } from './proxy.fixture.js';

const textOf = (result: unknown) => (result as { content: { text: string }[] }).content[0]!.text;

/**
 * The MCP client (`@modelcontextprotocol/client` over libs/client's authorized fetch) signs `login` in at the
 * upstream through the proxy, creates a note and lists it. Returns the pages the person saw and the proxy's `sub`.
 */
export async function signInWithMcpClient(
  server: ProtectedServer,
  proxy: ProxyFixture,
  login: string,
): Promise<{ pages: Walk['pages'][]; subject: string }> {
  const seen = server.recorder.exchanges.length;
  const person = new PersonAtBrowser(new HeadlessUserAgent(), 'http://127.0.0.1/callback', { login });
  const authorizedFetch = createAuthorizedFetch({
    resource: server.resource,
    userAgent: person,
    clientRegistration: { clientName: 'Notes by DCR' },
  });
  const client = new Client({ name: 'proxy-provider-tests', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(server.resource), mcpTransportOptions(authorizedFetch)),
  );
  try {
    const created = JSON.parse(
      textOf(await client.callTool({ name: 'notes_create', arguments: { title: `signed in as ${login}` } })),
    ) as { id: string };
    const listed = JSON.parse(textOf(await client.callTool({ name: 'notes_list', arguments: {} }))) as {
      id: string;
    }[];
    expect(listed.map((note) => note.id)).toContain(created.id);
  } finally {
    await client.close();
  }
  expect((await authorizedFetch.tokens())?.issuer).toBe(proxy.issuer);
  // The bearer tokens the server was shown in this sign-in: the proxy's own, for one person.
  const bearers = server.recorder.exchanges
    .slice(seen)
    .map((each) => /^Bearer (.+)$/.exec(String(each.headers.authorization ?? ''))?.[1])
    .filter((each): each is string => each !== undefined);
  expect(bearers.length).toBeGreaterThan(0);
  const subjects = new Set<unknown>();
  for (const bearer of bearers) {
    const claims = decodeJwt(bearer);
    expect(claims).toMatchObject({ iss: proxy.issuer, aud: server.resource });
    subjects.add(claims.sub);
  }
  expect(subjects.size).toBe(1);
  return { pages: person.walks.map((each) => each.pages), subject: String([...subjects][0]) };
}

/**
 * `login` signs in upstream and is refused by `UPSTREAM_ALLOWED`: a 403 page saying why, no redirect, nothing
 * stored (no code, grant, token, consent, user, session, upstream identity or token), one `sign_in.failed` event.
 */
export async function expectRefusedWithNothingStored(
  proxy: ProxyFixture,
  resource: string,
  login: string,
): Promise<Walk> {
  const before = await proxy.counts();
  const events = await proxy.prisma.securityEvent.count({ where: { type: 'sign_in.failed' } });
  const client = await proxy.createClient();
  const ua = new HeadlessUserAgent();
  const result = await walk(
    ua,
    await ua.get(authorizationRequest(proxy, client, resource).url),
    client.redirectUri,
    {
      login,
    },
  );
  expect(result.pages).toEqual(['proxy-consent', 'upstream-login', 'upstream-consent', 'other']);
  expect(result.stoppedAt).toBeUndefined();
  expect(result.response.status).toBe(403);
  expect(result.response.body).toContain('id="callback-rejected"');
  expect(result.response.body).toContain('not among those allowed');
  expect(result.response.location).toBeUndefined();
  const after = await proxy.counts();
  for (const table of [
    'codes',
    'grants',
    'accessTokens',
    'refreshTokens',
    'consents',
    'users',
    'sessions',
    'upstreamIdentities',
    'upstreamTokens',
  ] as const) {
    expect(after[table]).toBe(before[table]);
  }
  expect(await proxy.prisma.securityEvent.count({ where: { type: 'sign_in.failed' } })).toBe(events + 1);
  return result;
}
