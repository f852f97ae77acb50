// ALLOWED_REDIRECT_SCHEMES at boot: a scheme the browser handles itself is never private-use and stops the boot,
// naming the variable; a scheme that is no reverse domain name (Cursor's `cursor`) boots with a warning, RFC 8252 8.4
// saying such a scheme SHOULD be refused. (One app in this file: its log is captured on its own.)
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AppModule } from '../../src/app.module.js';
import {
  startAuthorizationServer,
  type AuthorizationServerFixture,
} from '../support/authorization-server.fixture.js';

describe('ALLOWED_REDIRECT_SCHEMES', () => {
  it.each(['javascript', 'data', 'vbscript', 'file', 'http', 'https'])(
    'stops the boot when it names %s, which is no private-use scheme, naming the variable',
    (scheme) => {
      expect(() => AppModule.configure({ ALLOWED_REDIRECT_SCHEMES: `cursor,${scheme}` })).toThrow(
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
  });
});
