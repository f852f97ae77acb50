import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { HeadlessUserAgent } from '@portcullis/testing';
import {
  authorizationRequest,
  startAuthorizationServer,
  type AuthorizationServerFixture,
} from '../support/authorization-server.fixture.js';

const LOCAL_NOTE = 'This application only runs on your own computer';

// One loopback rule (RFC 8252 8.3, 127.0.0.0/8): what registration accepts as a native app's local redirect is what
// the consent page points out as local.
describe('a redirect URI on another 127/8 address', () => {
  let as: AuthorizationServerFixture;
  let user: { username: string; password: string };
  beforeAll(async () => {
    as = await startAuthorizationServer();
    user = await as.createUser();
  });
  afterAll(async () => {
    await as?.close();
  });

  async function consentPageFor(redirectUri: string, applicationType: string): Promise<string> {
    const registered = await fetch(`${as.app.url}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Local tool',
        application_type: applicationType,
        redirect_uris: [redirectUri],
      }),
    });
    expect(registered.status).toBe(201);
    const { client_id: clientId } = (await registered.json()) as { client_id: string };
    const ua = new HeadlessUserAgent();
    const login = await ua.follow(
      await ua.get(authorizationRequest(as, { clientId, redirectUri }, { redirect_uri: redirectUri }).url),
    );
    const consent = await ua.follow(
      await ua.submit(login.form(), { username: user.username, password: user.password }),
    );
    expect(consent.form().fields['scope']).toBeDefined();
    return consent.body;
  }

  it('is accepted for a native app and called local on the consent page, as 127.0.0.1 is', async () => {
    expect(await consentPageFor('http://127.0.0.2:8400/callback', 'native')).toContain(LOCAL_NOTE);
    expect(await consentPageFor('http://127.0.0.1:8400/callback', 'native')).toContain(LOCAL_NOTE);
  });

  it('is not called local for a web app on https', async () => {
    expect(await consentPageFor('https://app.example/callback', 'web')).not.toContain(LOCAL_NOTE);
  });
});
