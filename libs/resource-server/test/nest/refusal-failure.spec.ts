import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Controller, Injectable, Post } from '@nestjs/common';
import { OAuthError } from '@portcullis/protocol';
import { startTestAuthorizationServer, type TestAuthorizationServer } from '@portcullis/testing';
import { ResolveScopes, type RequiredScopesResolver } from '../../src/nest/index.js';
import { bearer } from '../support/http.js';
import { startProtectedTestApp, type ProtectedTestApp } from '../support/protected-test-app.js';

const RESOURCE = 'http://127.0.0.1:9/api';
let handled = 0;

/** Refuses with a header value Node will not write (a CR LF in it): answering the refusal itself fails. */
@Injectable()
class UnwritableRefusal implements RequiredScopesResolver {
  async requiredScopes(): Promise<string[]> {
    throw new OAuthError('invalid_request', 'refused', { headers: { 'x-refusal': 'a\r\nb' } });
  }
}

@Controller('broken')
class BrokenController {
  @Post('refusal')
  @ResolveScopes(UnwritableRefusal)
  refusal(): { handled: true } {
    handled += 1;
    return { handled: true };
  }
}

describe('a refusal that cannot be written', () => {
  let as: TestAuthorizationServer;
  let app: ProtectedTestApp;
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);

  beforeAll(async () => {
    process.on('unhandledRejection', onUnhandled);
    as = await startTestAuthorizationServer({ audience: RESOURCE });
    app = await startProtectedTestApp(
      { resource: RESOURCE, authorizationServers: [as.issuer] },
      { controllers: [BrokenController] },
    );
  });
  afterAll(async () => {
    process.off('unhandledRejection', onUnhandled);
    await app?.close();
    await as?.close();
  });

  it('is answered with a 500 through the error handling, never left unanswered, and the handler never runs', async () => {
    const token = await as.mint();
    const response = await fetch(`${app.url}/broken/refusal`, {
      method: 'POST',
      headers: bearer(token),
      signal: AbortSignal.timeout(5_000),
    });
    expect(response.status).toBe(500);
    expect(response.headers.get('x-refusal')).toBeNull();
    expect(handled).toBe(0);
    // The cause is logged, not sent.
    expect(app.logger.lines.some((line) => line.includes('Invalid character in header content'))).toBe(true);
    expect(await response.text()).not.toContain('x-refusal');
    await new Promise((resolve) => setImmediate(resolve));
    expect(unhandled).toEqual([]);
  });
});
