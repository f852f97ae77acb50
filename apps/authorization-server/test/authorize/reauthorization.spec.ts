// A re-authorization: a browser with a login session whose user consented before asks for a code again. The
// session and that consent are read together, in one statement; these tests hold that read to the rules it decides
// on: only a live session signs the browser in, and only its own user's consent to this client for this resource,
// covering the requested scopes, lets the code go without a page (RFC 6749 4.1.1, RFC 8707 2, OpenID Connect Core
// 3.1.2.1 for `prompt`).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { HeadlessUserAgent, type UserAgentResponse } from '@portcullis/testing';
import {
  authorizationRequest,
  authorize,
  RESOURCE,
  startAuthorizationServer,
  type AuthorizationServerFixture,
  type TestClient,
} from '../support/authorization-server.fixture.js';

/** A second resource, so that a consent to the first one can be shown not to count for it. */
const OTHER_RESOURCE = 'http://localhost:4200/mcp';

describe('a re-authorization with a session and an earlier consent', () => {
  let as: AuthorizationServerFixture;
  beforeAll(async () => {
    as = await startAuthorizationServer({
      env: {
        RESOURCES: JSON.stringify([
          {
            uri: RESOURCE,
            name: 'Notes',
            scopes_supported: ['notes:read', 'notes:write'],
            scope_hierarchy: { 'notes:write': ['notes:read'] },
          },
          { uri: OTHER_RESOURCE, name: 'Other notes', scopes_supported: ['notes:read'] },
        ]),
      },
    });
  });
  afterAll(async () => {
    await as?.close();
  });

  /** A web client on https: a session and a covering consent let its authorization through without a page. */
  const webClient = () => as.createClient({ redirectUris: ['https://client.example/callback'] });

  /** A browser where a new user signed in and approved `client` for `overrides`' request. */
  async function signedInBrowser(client: TestClient, overrides: Record<string, string> = {}) {
    const user = await as.createUser();
    const ua = new HeadlessUserAgent();
    const callback = await authorize(ua, authorizationRequest(as, client, overrides), user, client);
    expect(callback.searchParams.get('code')).toBeTruthy();
    return { ua, user };
  }

  /** Where `/authorize` sent the browser, and how many grants and codes exist before and after. */
  async function attempt(ua: HeadlessUserAgent, client: TestClient, overrides: Record<string, string> = {}) {
    const before = await as.counts();
    const response = await ua.get(authorizationRequest(as, client, overrides).url);
    const after = await as.counts();
    return { response, stored: { grants: after.grants - before.grants, codes: after.codes - before.codes } };
  }

  /** The path of the interaction page a response sends the browser to. */
  const pageOf = (response: UserAgentResponse) => {
    expect(response.status).toBe(303);
    return new URL(response.location!, as.issuer).pathname;
  };

  const codeOf = (response: UserAgentResponse, client: TestClient) => {
    expect(response.status).toBe(303);
    const callback = new URL(response.location!);
    expect(`${callback.origin}${callback.pathname}`).toBe(client.redirectUri);
    return callback;
  };

  it('sends a code at once, and for a narrower scope the consent covers through the hierarchy', async () => {
    const client = await webClient();
    const { ua } = await signedInBrowser(client, { scope: 'notes:write' });
    const same = await attempt(ua, client, { scope: 'notes:write' });
    expect(codeOf(same.response, client).searchParams.get('code')).toBeTruthy();
    const narrower = await attempt(ua, client, { scope: 'notes:read' });
    expect(codeOf(narrower.response, client).searchParams.get('code')).toBeTruthy();
    expect(narrower.stored).toEqual({ grants: 1, codes: 1 });
  });

  it('asks for consent when the consent does not cover a wider scope, storing no code', async () => {
    const client = await webClient();
    const { ua } = await signedInBrowser(client, { scope: 'notes:read' });
    const { response, stored } = await attempt(ua, client, { scope: 'notes:read notes:write' });
    expect(pageOf(response)).toBe('/consent');
    expect(stored).toEqual({ grants: 0, codes: 0 });
  });

  it("does not count another user's consent to the same client", async () => {
    const client = await webClient();
    await signedInBrowser(client, { scope: 'notes:write' });
    const { ua } = await signedInBrowser(client, { scope: 'notes:read' });
    const { response, stored } = await attempt(ua, client, { scope: 'notes:write' });
    expect(pageOf(response)).toBe('/consent');
    expect(stored).toEqual({ grants: 0, codes: 0 });
  });

  it("does not count the user's consent to another client", async () => {
    const approved = await webClient();
    const other = await webClient();
    const { ua } = await signedInBrowser(approved, { scope: 'notes:read' });
    const { response, stored } = await attempt(ua, other, { scope: 'notes:read' });
    expect(pageOf(response)).toBe('/consent');
    expect(stored).toEqual({ grants: 0, codes: 0 });
  });

  it("does not count the user's consent to the client for another resource", async () => {
    const client = await webClient();
    const { ua } = await signedInBrowser(client, { scope: 'notes:read' });
    const { response, stored } = await attempt(ua, client, { scope: 'notes:read', resource: OTHER_RESOURCE });
    expect(pageOf(response)).toBe('/consent');
    expect(stored).toEqual({ grants: 0, codes: 0 });
  });

  it('asks for consent again under prompt=consent, and for a sign-in under prompt=login', async () => {
    const client = await webClient();
    const { ua } = await signedInBrowser(client, { scope: 'notes:read' });
    const consent = await attempt(ua, client, { scope: 'notes:read', prompt: 'consent' });
    expect(pageOf(consent.response)).toBe('/consent');
    const login = await attempt(ua, client, { scope: 'notes:read', prompt: 'login' });
    expect(pageOf(login.response)).toBe('/login');
    expect([consent.stored, login.stored]).toEqual([
      { grants: 0, codes: 0 },
      { grants: 0, codes: 0 },
    ]);
  });

  it('sends a code under prompt=none, and consent_required when the consent does not cover the request', async () => {
    const client = await webClient();
    const { ua } = await signedInBrowser(client, { scope: 'notes:read' });
    const covered = await attempt(ua, client, { scope: 'notes:read', prompt: 'none' });
    expect(codeOf(covered.response, client).searchParams.get('code')).toBeTruthy();
    const wider = await attempt(ua, client, { scope: 'notes:write', prompt: 'none' });
    const callback = codeOf(wider.response, client);
    expect(callback.searchParams.get('error')).toBe('consent_required');
    expect(callback.searchParams.get('code')).toBeNull();
    expect(wider.stored).toEqual({ grants: 0, codes: 0 });
  });

  it.each([
    ['revoked (signed out elsewhere)', { revokedAt: new Date() }],
    ['expired', { expiresAt: new Date(Date.now() - 1000) }],
  ])('asks for a sign-in when the session is %s, storing no code', async (_name, change) => {
    const client = await webClient();
    const { ua, user } = await signedInBrowser(client, { scope: 'notes:read' });
    await as.prisma.loginSession.updateMany({ where: { userId: user.id }, data: change });
    const { response, stored } = await attempt(ua, client, { scope: 'notes:read' });
    expect(pageOf(response)).toBe('/login');
    expect(stored).toEqual({ grants: 0, codes: 0 });
    const none = await attempt(ua, client, { scope: 'notes:read', prompt: 'none' });
    expect(codeOf(none.response, client).searchParams.get('error')).toBe('login_required');
    expect(none.stored).toEqual({ grants: 0, codes: 0 });
  });
});
