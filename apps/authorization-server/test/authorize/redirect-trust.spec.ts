import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { HeadlessUserAgent, makeTestCertificates, type UserAgentResponse } from '@portcullis/testing';
import {
  authorizationRequest,
  authorize,
  redeem,
  settle,
  type AuthorizationServerFixture,
  type TestClient,
} from '../support/authorization-server.fixture.js';
import { startCimdAuthorizationServer, tableLookup } from '../support/cimd-authorization-server.js';
import { startDocumentServer, type DocumentServer } from '../support/cimd-document-server.js';
import { nativeClient, register } from '../registration/registration.helpers.js';

const REDIRECT_URI = 'http://127.0.0.1/callback';

/** Requests that fail after the redirect URI is validated: each error the authorization endpoint sends the client. */
const FAILING_REQUESTS: ReadonlyArray<{
  name: string;
  overrides: Record<string, string | undefined>;
  error: string;
}> = [
  {
    name: 'an unsupported response_type',
    overrides: { response_type: 'token' },
    error: 'unsupported_response_type',
  },
  {
    name: 'no PKCE',
    overrides: { code_challenge: undefined, code_challenge_method: undefined },
    error: 'invalid_request',
  },
  { name: 'an unknown scope', overrides: { scope: 'notes:delete-everything' }, error: 'invalid_scope' },
  {
    name: 'an unknown resource',
    overrides: { resource: 'https://elsewhere.example/mcp' },
    error: 'invalid_target',
  },
  { name: 'prompt=none without a session', overrides: { prompt: 'none' }, error: 'login_required' },
];

describe('the redirect trust policy of the authorization endpoint and the consent page', () => {
  let documents: DocumentServer;
  let as: AuthorizationServerFixture;

  beforeAll(async () => {
    const certificates = makeTestCertificates();
    documents = await startDocumentServer(certificates);
    as = await startCimdAuthorizationServer({
      fetchOptions: { lookup: tableLookup({ localhost: ['127.0.0.1'] }), ca: certificates.ca },
      env: { CIMD_ALLOW_LOOPBACK: 'true' },
    });
  });
  afterAll(async () => {
    await as?.close();
    await documents?.close();
  });

  async function registeredClient(): Promise<TestClient> {
    const registration = await register(as, nativeClient({ client_name: 'Self-registered' }));
    expect(registration.status).toBe(201);
    return { clientId: registration.body['client_id'] as string, redirectUri: REDIRECT_URI };
  }

  function documentClient(path: string): TestClient {
    documents.serveJson(path, {
      client_id: documents.url(path),
      client_name: 'Document client',
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code', 'refresh_token'],
    });
    return { clientId: documents.url(path), redirectUri: REDIRECT_URI };
  }

  /**
   * Runs `request` and checks it wrote no code, grant, token or consent; pending authorizations change by
   * `pendingChange` (-1: the request was answered and is gone; +1: it waits for the person).
   */
  async function nothingWritten(
    request: () => Promise<UserAgentResponse>,
    pendingChange = 0,
  ): Promise<UserAgentResponse> {
    const before = await as.counts();
    const pending = await as.prisma.pendingAuthorization.count();
    const response = await request();
    expect(await as.counts()).toEqual(before);
    expect(await as.prisma.pendingAuthorization.count()).toBe(pending + pendingChange);
    return response;
  }

  /** The page answered instead of a redirect: no Location, the error shown, the client's answer as a link. */
  function expectLinkPage(response: UserAgentResponse, error: string, state: string): void {
    expect(response.status).toBe(error === 'access_denied' ? 200 : 400);
    expect(response.location).toBeUndefined();
    expect(response.headers.get('content-type')).toContain('text/html');
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    const links = response.links().filter((href) => href.startsWith(REDIRECT_URI));
    expect(links).toHaveLength(1);
    const link = new URL(links[0]!);
    expect(link.searchParams.get('error')).toBe(error);
    expect(link.searchParams.get('state')).toBe(state);
    expect(link.searchParams.get('iss')).toBe(as.issuer);
    expect(link.searchParams.has('code')).toBe(false);
  }

  function expectRedirect(response: UserAgentResponse, error: string, state: string): void {
    expect(response.status).toBe(303);
    const location = new URL(response.location!);
    expect(location.origin + location.pathname).toBe(REDIRECT_URI);
    expect(location.searchParams.get('error')).toBe(error);
    expect(location.searchParams.get('state')).toBe(state);
    expect(location.searchParams.get('iss')).toBe(as.issuer);
  }

  describe.each([
    ['a dynamically registered client', () => registeredClient()],
    [
      'a client ID metadata document client',
      async () => documentClient(`/clients/never-approved-${Date.now()}.json`),
    ],
  ])('for %s nobody approved', (_kind, makeClient) => {
    it.each(FAILING_REQUESTS)(
      'answers $name with a page and a link, never a redirect',
      async ({ overrides, error }) => {
        const client = await makeClient();
        const request = authorizationRequest(as, client, overrides);
        const response = await nothingWritten(() => new HeadlessUserAgent().get(request.url));
        expectLinkPage(response, error, request.state);
      },
    );

    it('answers Deny on the consent page with a page and a link', async () => {
      const client = await makeClient();
      const user = await as.createUser();
      const ua = new HeadlessUserAgent();
      const request = authorizationRequest(as, client);
      const login = await ua.follow(await ua.get(request.url));
      const consent = await ua.follow(
        await ua.submit(login.form(), { username: user.username, password: user.password }),
      );
      expect(consent.url).toContain('/consent?interaction=');
      const denied = await nothingWritten(
        () => ua.submit(consent.form(), {}, { button: { name: 'decision', value: 'deny' } }),
        -1,
      );
      expectLinkPage(denied, 'access_denied', request.state);
      // Answered once: the same form again finds the request gone.
      const again = await ua.submit(consent.form(), {}, { button: { name: 'decision', value: 'deny' } });
      expect(again.status).toBe(400);
      expect(again.location).toBeUndefined();
    });
  });

  it('still redirects errors to a pre-registered client', async () => {
    const client = await as.createClient({ redirectUris: [REDIRECT_URI] });
    for (const { overrides, error } of FAILING_REQUESTS) {
      const request = authorizationRequest(as, client, overrides);
      const response = await nothingWritten(() => new HeadlessUserAgent().get(request.url));
      expectRedirect(response, error, request.state);
    }
  });

  it('redirects errors to a self-registered client once this person has approved it', async () => {
    const client = await registeredClient();
    const user = await as.createUser();
    const ua = new HeadlessUserAgent();
    await authorize(ua, authorizationRequest(as, client), user, client);
    // Another browser, or the same one before approving, would get the page; this one is signed in as the approver.
    for (const { overrides, error } of FAILING_REQUESTS.filter(
      ({ name }) => !name.startsWith('prompt=none'),
    )) {
      const request = authorizationRequest(as, client, overrides);
      expectRedirect(await nothingWritten(() => ua.get(request.url)), error, request.state);
    }
    const stranger = authorizationRequest(as, client, { scope: 'notes:delete-everything' });
    expectLinkPage(await new HeadlessUserAgent().get(stranger.url), 'invalid_scope', stranger.state);
  });

  describe('a client on this device (a public one, or any on a loopback redirect URI or of a native application)', () => {
    /** A browser whose person approved `client` once; returns the browser. */
    async function approvedOnce(client: TestClient): Promise<HeadlessUserAgent> {
      const user = await as.createUser();
      const ua = new HeadlessUserAgent();
      const first = await authorize(ua, authorizationRequest(as, client), user, client);
      expect(first.searchParams.get('code')).toBeTruthy();
      return ua;
    }

    it('gets a code again only after one click on "Continue", never silently', async () => {
      const client = await as.createClient({ redirectUris: [REDIRECT_URI] });
      const ua = await approvedOnce(client);

      const request = authorizationRequest(as, client);
      const confirm = await nothingWritten(async () => {
        const first = await ua.get(request.url);
        expect(first.status).toBe(303);
        expect(new URL(first.location!).pathname).toBe('/continue');
        return ua.follow(first);
      }, 1);
      expect(confirm.status).toBe(200);
      expect(confirm.body).toContain('Continue to');
      expect(confirm.body).not.toContain('Allow access');
      expect(confirm.form().action).toBe(`${as.app.url}/continue`);

      // A form from another browser (another session) does not count as the click.
      const stranger = new HeadlessUserAgent();
      const forged = await nothingWritten(() =>
        stranger.submit(confirm.form(), {}, { button: { name: 'decision', value: 'approve' } }),
      );
      expect(forged.status).toBe(403);
      expect(forged.location).toBeUndefined();

      const released = await settle(
        ua,
        await ua.submit(confirm.form(), {}, { button: { name: 'decision', value: 'approve' } }),
        (url) => url.startsWith(REDIRECT_URI),
      );
      expect(released.stoppedAt?.searchParams.get('state')).toBe(request.state);
      const token = await redeem(as, client, released.stoppedAt!, request);
      expect(token.status).toBe(200);
    });

    it('answers Cancel with access_denied to the client it approved before', async () => {
      const client = await as.createClient({ redirectUris: [REDIRECT_URI] });
      const ua = await approvedOnce(client);
      const request = authorizationRequest(as, client);
      const confirm = await ua.follow(await ua.get(request.url));
      const cancelled = await nothingWritten(
        () => ua.submit(confirm.form(), {}, { button: { name: 'decision', value: 'deny' } }),
        -1,
      );
      expectRedirect(cancelled, 'access_denied', request.state);
    });

    it('continues a pending authorization only in the browser that started it (a handle sent to a victim)', async () => {
      const client = await as.createClient({ redirectUris: [REDIRECT_URI] });
      const victim = await approvedOnce(client);
      // Someone else starts an authorization for the client, signs in (an action, in their browser) and stops on the
      // consent page; then gets the victim's browser to open, or post, that page.
      const attacker = new HeadlessUserAgent();
      const intruder = await as.createUser();
      const request = authorizationRequest(as, client);
      const login = await attacker.follow(await attacker.get(request.url));
      const consent = await attacker.follow(
        await attacker.submit(login.form(), { username: intruder.username, password: intruder.password }),
      );
      expect(new URL(consent.url).pathname).toBe('/consent');
      const stored = await as.prisma.pendingAuthorization.findMany();
      for (const attempt of [
        () => victim.get(consent.url),
        () => victim.submit(consent.form(), {}, { button: { name: 'decision', value: 'approve' } }),
      ]) {
        const opened = await nothingWritten(attempt);
        expect(opened.status).toBe(403);
        expect(opened.location).toBeUndefined();
        expect(opened.body).toContain('started in another browser');
      }
      // Nor did the victim's visit change the attacker's pending request.
      expect(await as.prisma.pendingAuthorization.findMany()).toEqual(stored);
    });

    it('lets whoever finishes a request only finish it in the browser that started it (no session swapping)', async () => {
      const client = await as.createClient({
        redirectUris: ['https://app.example.com/cb'],
        confidential: 'client_secret_basic',
      });
      const victimUser = await as.createUser();
      const victim = new HeadlessUserAgent();
      const request = authorizationRequest(as, { ...client, redirectUri: 'https://app.example.com/cb' });
      const login = await victim.follow(await victim.get(request.url));
      await victim.follow(
        await victim.submit(login.form(), { username: victimUser.username, password: victimUser.password }),
      );
      // The attacker has the handle (a leaked URL) and signs in as themselves in their own browser.
      const attacker = new HeadlessUserAgent();
      const opened = await nothingWritten(() => attacker.get(login.url));
      expect(opened.status).toBe(403);
      expect(opened.body).toContain('started in another browser');
    });

    it.each([
      ['on a loopback redirect URI', REDIRECT_URI, 'native' as const],
      [
        'of a native application on an https redirect URI',
        'https://vscode.example/redirect',
        'native' as const,
      ],
      ['of a web application on a loopback redirect URI', REDIRECT_URI, 'web' as const],
    ])(
      'asks the click of a confidential client %s too: a secret on a device proves nothing (RFC 8252 8.5)',
      async (_kind, redirectUri, applicationType) => {
        const client = await as.createClient({
          redirectUris: [redirectUri],
          confidential: 'client_secret_post',
          applicationType,
        });
        const ua = await approvedOnce(client);
        const request = authorizationRequest(as, client);
        const confirm = await nothingWritten(async () => {
          const first = await ua.get(request.url);
          expect(first.status).toBe(303);
          expect(new URL(first.location!).pathname).toBe('/continue');
          return ua.follow(first);
        }, 1);
        expect(confirm.status).toBe(200);
        expect(confirm.body).toContain('Continue to');
        const released = await settle(
          ua,
          await ua.submit(confirm.form(), {}, { button: { name: 'decision', value: 'approve' } }),
          (url) => url.startsWith(redirectUri),
        );
        const token = await redeem(as, client, released.stoppedAt!, request, {
          client_secret: client.clientSecret,
        });
        expect(token.status).toBe(200);
      },
    );

    it('re-authorizes a confidential web client on an https redirect URI silently', async () => {
      const client = await as.createClient({
        redirectUris: ['https://app.example.com/cb'],
        confidential: 'client_secret_post',
      });
      const ua = await approvedOnce(client);
      const request = authorizationRequest(as, client);
      const response = await ua.get(request.url);
      expect(response.status).toBe(303);
      expect(response.location).toMatch(/^https:\/\/app\.example\.com\/cb\?code=/);
    });

    it('asks no click after a sign-in or a consent in the same flow, and refuses prompt=none', async () => {
      const client = await as.createClient({ redirectUris: [REDIRECT_URI] });
      const user = await as.createUser();
      const ua = new HeadlessUserAgent();
      // Signing in is an action in this browser: no confirmation after it, even with consent already given.
      await authorize(ua, authorizationRequest(as, client), user, client);
      const relogin = authorizationRequest(as, client, { prompt: 'login' });
      const login = await ua.follow(await ua.get(relogin.url));
      const afterLogin = await settle(
        ua,
        await ua.submit(login.form(), { username: user.username, password: user.password }),
        (url) => url.startsWith(REDIRECT_URI),
      );
      expect(afterLogin.stoppedAt?.searchParams.get('code')).toBeTruthy();

      const silent = authorizationRequest(as, client, { prompt: 'none' });
      expectRedirect(await nothingWritten(() => ua.get(silent.url)), 'interaction_required', silent.state);
    });
  });
});
