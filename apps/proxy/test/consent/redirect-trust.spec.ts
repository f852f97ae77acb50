import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  freePort,
  HeadlessUserAgent,
  makeTestCertificates,
  type UserAgentResponse,
} from '@portcullis/testing';
import { startDocumentServer, type DocumentServer } from '../support/document-server.js';
import { walk, type PageKind } from '../support/person.js';
import {
  authorizationRequest,
  proxyCallback,
  startProxy,
  type ProxyFixture,
  type TestClient,
} from '../support/proxy.fixture.js';
import { startUpstream, type UpstreamFixture } from '../support/upstream.fixture.js';

const RESOURCE = 'http://127.0.0.1:4199/mcp';
const REDIRECT_URI = 'http://127.0.0.1/callback';

/** Requests that fail after the redirect URI is validated. */
const FAILING_REQUESTS: ReadonlyArray<{ overrides: Record<string, string | undefined>; error: string }> = [
  { overrides: { response_type: 'token' }, error: 'unsupported_response_type' },
  { overrides: { code_challenge: undefined, code_challenge_method: undefined }, error: 'invalid_request' },
  { overrides: { scope: 'notes:delete-everything' }, error: 'invalid_scope' },
  { overrides: { resource: 'https://elsewhere.example/mcp' }, error: 'invalid_target' },
  { overrides: { prompt: 'none' }, error: 'login_required' },
];

/** The consent pages of the proxy itself among the pages of a walk (the upstream's own pages are not its). */
function proxyConsentPages(pages: readonly PageKind[]): PageKind[] {
  return pages.filter((kind) => kind === 'proxy-consent' || kind === 'session-consent');
}

describe("the proxy's redirect trust policy and its one consent page per flow", () => {
  let upstream: UpstreamFixture;
  let proxy: ProxyFixture;
  let documents: DocumentServer;

  beforeAll(async () => {
    const port = await freePort();
    const certificates = makeTestCertificates();
    documents = await startDocumentServer(certificates, (clientId) => ({
      client_id: clientId,
      client_name: 'Notes by document',
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    }));
    upstream = await startUpstream({ redirectUri: proxyCallback(port) });
    proxy = await startProxy({
      port,
      upstream,
      resource: RESOURCE,
      env: { CIMD_ENABLED: 'true', CIMD_ALLOW_LOOPBACK: 'true' },
      host: {
        metadataDocumentFetch: {
          ca: certificates.ca,
          lookup: async () => [{ address: '127.0.0.1', family: 4 }],
        },
      },
    });
  });
  afterAll(async () => {
    await proxy?.close();
    await upstream?.close();
    await documents?.close();
  });

  const documentClient = (): TestClient => ({
    clientId: documents.clientId,
    redirectUri: REDIRECT_URI,
    name: 'Notes by document',
  });

  /** Requests `url` and checks nothing was written and nothing went upstream. */
  async function nothingWritten(ua: HeadlessUserAgent, url: string): Promise<UserAgentResponse> {
    const before = await proxy.counts();
    const pending = await proxy.prisma.pendingAuthorization.count();
    const exchanges = upstream.exchanges.length;
    const response = await ua.get(url);
    expect(await proxy.counts()).toEqual(before);
    expect(await proxy.prisma.pendingAuthorization.count()).toBe(pending);
    expect(upstream.exchanges).toHaveLength(exchanges);
    return response;
  }

  it.each([
    ['a dynamically registered client', () => proxy.createClient({ origin: 'dynamic' })],
    ['a client ID metadata document client', async () => documentClient()],
  ])(
    'answers every authorization error for %s nobody approved with a page and a link',
    async (_kind, make) => {
      const client = await make();
      for (const { overrides, error } of FAILING_REQUESTS) {
        const request = authorizationRequest(proxy, client, RESOURCE, overrides);
        const response = await nothingWritten(new HeadlessUserAgent(), request.url);
        expect(response.status).toBe(400);
        expect(response.location).toBeUndefined();
        const link = new URL(response.links().find((href) => href.startsWith(REDIRECT_URI))!);
        expect(link.searchParams.get('error')).toBe(error);
        expect(link.searchParams.get('state')).toBe(request.state);
        expect(link.searchParams.get('iss')).toBe(proxy.issuer);
      }
    },
  );

  it('still redirects errors to a pre-registered client, and to a self-registered one this person approved', async () => {
    const preregistered = await proxy.createClient({ origin: 'preregistered' });
    const approved = await proxy.createClient({ origin: 'dynamic' });
    const ua = new HeadlessUserAgent();
    const first = await walk(
      ua,
      await ua.get(authorizationRequest(proxy, approved, RESOURCE).url),
      REDIRECT_URI,
    );
    expect(first.stoppedAt?.searchParams.get('code')).toBeTruthy();
    for (const [client, browser] of [
      [preregistered, new HeadlessUserAgent()],
      [approved, ua],
    ] as const) {
      const request = authorizationRequest(proxy, client, RESOURCE, { scope: 'notes:delete-everything' });
      const response = await nothingWritten(browser, request.url);
      expect(response.status).toBe(303);
      const location = new URL(response.location!);
      expect(location.origin + location.pathname).toBe(REDIRECT_URI);
      expect(location.searchParams.get('error')).toBe('invalid_scope');
      expect(location.searchParams.get('iss')).toBe(proxy.issuer);
    }
  });

  it('shows exactly one consent page in a first flow, with prompt=consent, and with a cookie but another person', async () => {
    const client = await proxy.createClient({ origin: 'dynamic' });
    const ua = new HeadlessUserAgent();
    const first = await walk(
      ua,
      await ua.get(authorizationRequest(proxy, client, RESOURCE).url),
      REDIRECT_URI,
      {
        login: 'ida',
      },
    );
    expect(first.stoppedAt?.searchParams.get('code')).toBeTruthy();
    expect(proxyConsentPages(first.pages)).toEqual(['proxy-consent']);

    // Signed in at the proxy and asked to consent again: one page, the one after sign-in.
    const again = await walk(
      ua,
      await ua.get(authorizationRequest(proxy, client, RESOURCE, { prompt: 'consent' }).url),
      REDIRECT_URI,
    );
    expect(again.stoppedAt?.searchParams.get('code')).toBeTruthy();
    expect(proxyConsentPages(again.pages)).toEqual(['session-consent']);

    // Not signed in and asked to consent again: one page, the proxy's, before going upstream.
    await proxy.prisma.loginSession.updateMany({ data: { revokedAt: new Date() } });
    const forced = await walk(
      ua,
      await ua.get(authorizationRequest(proxy, client, RESOURCE, { prompt: 'consent login' }).url),
      REDIRECT_URI,
      { login: 'ida' },
    );
    expect(forced.stoppedAt?.searchParams.get('code')).toBeTruthy();
    expect(proxyConsentPages(forced.pages)).toEqual(['proxy-consent']);

    // The consent cookie skips the proxy's page, but upstream someone else signs in, whom the registry does not
    // cover: that person gets the one consent page, after sign-in. (A second browser holding the first one's consent
    // cookie: the upstream has no session there.)
    const shared = new HeadlessUserAgent();
    for (const cookie of ua.cookieJar.all().filter(({ name }) => name.startsWith('portcullis-consent-'))) {
      shared.cookieJar.setCookie(
        `${cookie.name}=${cookie.value}; Path=/; HttpOnly; SameSite=Lax`,
        proxy.issuer,
      );
    }
    const other = await walk(
      shared,
      await shared.get(authorizationRequest(proxy, client, RESOURCE).url),
      REDIRECT_URI,
      { login: 'judy' },
    );
    expect(other.stoppedAt?.searchParams.get('code')).toBeTruthy();
    expect(proxyConsentPages(other.pages)).toEqual(['session-consent']);
  });

  it('does not let an approval made in one browser send another browser upstream (a handle sent to a victim)', async () => {
    const client = await proxy.createClient({ origin: 'dynamic' });
    const attacker = new HeadlessUserAgent();
    const first = await walk(
      attacker,
      await attacker.get(authorizationRequest(proxy, client, RESOURCE).url),
      REDIRECT_URI,
      { consent: 'leave' },
    );
    const pageUrl = first.response.url;
    // The attacker approves in their own browser (which would go upstream), then sends the page's URL to a victim.
    const approved = await attacker.submit(
      first.response.form(),
      {},
      { button: { name: 'decision', value: 'approve' } },
    );
    expect(approved.location).toMatch(new RegExp(`^${upstream.issuer}/auth`));
    const victim = new HeadlessUserAgent();
    const opened = await nothingWritten(victim, pageUrl);
    expect(opened.status).toBe(403);
    expect(opened.location).toBeUndefined();
    expect(opened.body).toContain('started in another browser');
  });
});
