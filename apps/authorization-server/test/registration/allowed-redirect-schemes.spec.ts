// ALLOWED_REDIRECT_SCHEMES at boot: a scheme the browser handles itself is never private-use and stops the boot,
// naming the variable; a scheme that is no reverse domain name (Cursor's `cursor`) boots with a warning, RFC 8252 8.4
// saying such a scheme SHOULD be refused. A scheme taken out of the variable stops the clients registered with it
// at /authorize too: an error page, never a redirect to the application that claims it.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { HeadlessUserAgent } from '@portcullis/testing';
import { AppModule } from '../../src/app.module.js';
import {
  authorizationRequest,
  startAuthorizationServer,
  type AuthorizationServerFixture,
} from '../support/authorization-server.fixture.js';

const CURSOR_REDIRECT = 'cursor://anysphere.cursor-mcp/oauth/callback';

describe('ALLOWED_REDIRECT_SCHEMES', () => {
  it.each(['javascript', 'data', 'vbscript', 'file', 'http', 'https'])(
    'stops the boot when it names %s, which is no private-use scheme, naming the variable',
    async (scheme) => {
      await expect(AppModule.configure({ ALLOWED_REDIRECT_SCHEMES: `cursor,${scheme}` })).rejects.toThrow(
        `ALLOWED_REDIRECT_SCHEMES ${scheme} is not a private-use scheme`,
      );
    },
  );

  describe('naming cursor', () => {
    let as: AuthorizationServerFixture;
    beforeAll(async () => {
      as = await startAuthorizationServer({ env: { ALLOWED_REDIRECT_SCHEMES: 'cursor' }, captureLogs: true });
    });
    afterAll(async () => {
      await as?.close();
    });

    it('boots, says so and warns that cursor is no reverse domain name (RFC 8252 8.4)', async () => {
      // The log is written asynchronously: a request later, the boot's lines are there.
      await fetch(`${as.app.url}/healthz`);
      expect(as.app.logs()).toContain(
        'private-use redirect URI schemes allowed (ALLOWED_REDIRECT_SCHEMES): cursor',
      );
      expect(as.app.logs()).toContain(
        'ALLOWED_REDIRECT_SCHEMES: cursor is not a reverse domain name (RFC 8252 7.1)',
      );
    });

    it('takes a client registered with a cursor redirect URI to sign-in', async () => {
      const client = await as.createClient({ redirectUris: [CURSOR_REDIRECT], name: 'Cursor' });
      const response = await new HeadlessUserAgent().get(authorizationRequest(as, client).url);
      expect(response.status).toBe(303);
      expect(new URL(response.location!).pathname).toBe('/login');
    });
  });

  describe('no longer naming cursor', () => {
    let as: AuthorizationServerFixture;
    beforeAll(async () => {
      as = await startAuthorizationServer();
    });
    afterAll(async () => {
      await as?.close();
    });

    it.each([
      ['naming it', true],
      ['its only one, unnamed', false],
    ])(
      'refuses a client registered with a cursor redirect URI while it was allowed (%s) with a page, no redirect',
      async (_how, named) => {
        // Registered when the scheme was allowed: the row is as registration left it.
        const client = await as.createClient({ redirectUris: [CURSOR_REDIRECT], name: 'Cursor' });
        const before = await as.counts();
        const pending = await as.prisma.pendingAuthorization.count();
        const request = authorizationRequest(as, client, named ? {} : { redirect_uri: undefined });
        const response = await new HeadlessUserAgent().get(request.url);
        expect(response.status).toBe(400);
        expect(response.location).toBeUndefined();
        expect(response.headers.get('content-type')).toContain('text/html');
        expect(response.body).toContain('invalid_request');
        expect(response.body).toContain('this server no longer accepts redirect URIs of its scheme');
        expect(response.links().filter((href) => href.startsWith('cursor:'))).toEqual([]);
        expect(await as.counts()).toEqual(before);
        expect(await as.prisma.pendingAuthorization.count()).toBe(pending);
      },
    );
  });
});
