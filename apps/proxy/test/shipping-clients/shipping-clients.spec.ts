// What shipping MCP clients send, replayed exactly (libs/testing/src/shipping-clients, one file per client, each
// naming its public sources), against the proxy in front of a third-party upstream (oidc-provider): client ID
// metadata documents advertised (their hosts mapped to loopback by the test-only fetch options), dynamic
// registration beside them, `cursor` allowed as a private-use redirect scheme. Each client goes from its first 401
// at the protected server to a tool call there with the proxy's token; the person, `demo` upstream, answers the
// proxy's consent page and the upstream's sign-in and consent.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  CHATGPT_METADATA_DOCUMENT,
  CLAUDE_CODE_METADATA_DOCUMENT,
  CLAUDE_HOSTED_METADATA_DOCUMENT,
  CODEX_METADATA_DOCUMENT,
  CURSOR_REDIRECT,
  GOOSE_METADATA_DOCUMENT,
  HeadlessUserAgent,
  VSCODE_METADATA_DOCUMENT,
  chatgpt,
  claudeCode,
  claudeHosted,
  codex,
  cursor,
  driveShippingClient,
  freePort,
  goose,
  mcpInspector,
  startClientDocumentHost,
  visualStudioCode,
  type ClientDocumentHost,
  type Person,
  type ShippingClient,
  type ShippingClientRun,
} from '@portcullis/testing';
import { decodeJwt } from 'jose';
import { walk, type Walk } from '../support/person.js';
import { reserveResource, startProtectedServer, type ProtectedServer } from '../support/protected-server.js';
import { proxyCallback, startProxy, type ProxyFixture } from '../support/proxy.fixture.js';
import { startUpstream, type UpstreamFixture } from '../support/upstream.fixture.js';

/** Each client's expected identity at the proxy: its metadata document, or a registration. */
const CASES: readonly [ShippingClient, string | 'dynamic'][] = [
  [claudeCode(), CLAUDE_CODE_METADATA_DOCUMENT],
  [claudeCode({ resource: 'omitted' }), CLAUDE_CODE_METADATA_DOCUMENT],
  [claudeHosted(), CLAUDE_HOSTED_METADATA_DOCUMENT],
  [chatgpt(), CHATGPT_METADATA_DOCUMENT],
  [codex(), CODEX_METADATA_DOCUMENT],
  [visualStudioCode(), VSCODE_METADATA_DOCUMENT],
  [visualStudioCode({ version: '1.104' }), 'dynamic'],
  [goose(), GOOSE_METADATA_DOCUMENT],
  [mcpInspector({ surface: 'browser' }), 'dynamic'],
  [mcpInspector({ surface: 'command-line' }), 'dynamic'],
];

describe('shipping clients at the proxy', () => {
  let documents: ClientDocumentHost;
  let upstream: UpstreamFixture;
  let proxy: ProxyFixture;
  let server: ProtectedServer;

  beforeAll(async () => {
    documents = await startClientDocumentHost(CASES.map(([client]) => client));
    const port = await freePort();
    const { recorder, resource } = await reserveResource();
    upstream = await startUpstream({ redirectUri: proxyCallback(port) });
    proxy = await startProxy({
      port,
      upstream,
      resource,
      env: { CIMD_ENABLED: 'true', CIMD_ALLOW_LOOPBACK: 'true', ALLOWED_REDIRECT_SCHEMES: 'cursor' },
      host: { metadataDocumentFetch: documents.fetchOverrides },
    });
    server = await startProtectedServer({ recorder, resource, authorizationServer: proxy.issuer });
  });
  afterAll(async () => {
    await server?.close();
    await proxy?.close();
    await upstream?.close();
    await documents?.close();
  });

  /** `demo` at a fresh browser, walking the proxy's and the upstream's pages; each walk is kept. */
  function demoAtBrowser(walks: Walk[]): Person {
    const ua = new HeadlessUserAgent();
    return async (authorizationUrl, redirectUri) => {
      const result = await walk(ua, await ua.get(authorizationUrl), redirectUri, { login: 'demo' });
      walks.push(result);
      if (!result.stoppedAt) {
        const { url, status, body } = result.response;
        const error = /<p class="error"[^>]*>(.*?)<\/p>/su.exec(body)?.[1]?.replace(/<[^>]+>/gu, '');
        throw new Error(`the flow stopped on ${url}: ${status} ${error ?? ''}`);
      }
      return result.stoppedAt;
    };
  }

  function expectProxyToken(run: ShippingClientRun): void {
    expect(run.callback.searchParams.get('iss')).toBe(proxy.issuer);
    expect(decodeJwt(run.token['access_token'] as string)).toMatchObject({
      iss: proxy.issuer,
      aud: server.resource,
      client_id: run.clientId,
    });
    expect(run.tools.called.at(-1)).toBe('notes_list');
    if (run.tools.created) expect(run.tools.listed.map((note) => note.id)).toContain(run.tools.created.id);
  }

  it.each(CASES.map(([client, identity]) => [client.name, client, identity] as const))(
    'takes %s through its consent and the upstream sign-in to a tool call',
    async (_name, client, identity) => {
      const walks: Walk[] = [];
      const run = await driveShippingClient(client, {
        resource: server.resource,
        person: demoAtBrowser(walks),
      });
      if (identity === 'dynamic') {
        expect(run.choice.kind).toBe('dynamic');
        expect(await proxy.prisma.client.count({ where: { id: run.clientId } })).toBe(1);
      } else {
        expect(run.choice).toEqual({ kind: 'metadata-document', clientId: identity });
        expect(documents.requests(identity)).toBeGreaterThan(0);
      }
      expect(walks.map((one) => one.pages)).toEqual([
        ['proxy-consent', 'upstream-login', 'upstream-consent'],
      ]);
      expectProxyToken(run);
    },
  );

  it("takes Cursor's registration with its private-use scheme redirect to a tool call, flagged on consent", async () => {
    const walks: Walk[] = [];
    const run = await driveShippingClient(cursor(), {
      resource: server.resource,
      person: demoAtBrowser(walks),
    });
    expect(run.callback.href.startsWith(`${CURSOR_REDIRECT}?`)).toBe(true);
    expect(run.authorizationRequest.searchParams.has('resource')).toBe(false);
    expect(walks.map((one) => one.pages)).toEqual([['proxy-consent', 'upstream-login', 'upstream-consent']]);
    const consent = walks[0]?.shown.find((page, index) => walks[0]?.pages[index] === 'proxy-consent');
    expect(consent?.body).toContain('cursor:');
    expectProxyToken(run);
  });
});
