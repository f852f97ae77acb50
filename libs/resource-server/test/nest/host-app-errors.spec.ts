import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ConflictException, Controller, Get } from '@nestjs/common';
import { startTestAuthorizationServer, type TestAuthorizationServer } from '@portcullis/testing';
import { Protected } from '../../src/nest/index.js';
import { bearer, bearerChallengeOf } from '../support/http.js';
import { startProtectedTestApp, type ProtectedTestApp } from '../support/protected-test-app.js';

const RESOURCE = 'http://127.0.0.1:9/api';

/** The host app's own routes, with its own errors. */
@Controller('host')
class HostController {
  @Get('conflict')
  conflict(): never {
    throw new ConflictException('that name is taken');
  }

  @Get('guarded-conflict')
  @Protected()
  guardedConflict(): never {
    throw new ConflictException('that name is taken');
  }
}

/**
 * `ResourceServerModule` in an app that is not ours: it answers the refusals of the routes it guards and nothing
 * else. The app's own 404 and its own `HttpException`s, on its routes and on guarded ones, come out as the app (here
 * Nest's defaults) writes them, never as `invalid_request`.
 */
describe('a host app that imports the module and keeps its own error handling', () => {
  let as: TestAuthorizationServer;
  let app: ProtectedTestApp;

  beforeAll(async () => {
    as = await startTestAuthorizationServer({ audience: RESOURCE });
    app = await startProtectedTestApp(
      { resource: RESOURCE, authorizationServers: [as.issuer], scopesSupported: ['notes:read'] },
      { appFilter: false, controllers: [HostController] },
    );
  });
  afterAll(async () => {
    await app?.close();
    await as?.close();
  });

  it('keeps the host’s own 404 for a path no route serves', async () => {
    const response = await fetch(`${app.url}/nope`);
    expect(response.status).toBe(404);
    expect(response.headers.get('www-authenticate')).toBeNull();
    expect(await response.json()).toEqual({
      statusCode: 404,
      message: 'Cannot GET /nope',
      error: 'Not Found',
    });
  });

  it('keeps the host’s own HttpException on its own route', async () => {
    const response = await fetch(`${app.url}/host/conflict`);
    expect(response.status).toBe(409);
    expect(await response.json()).toEqual({
      statusCode: 409,
      message: 'that name is taken',
      error: 'Conflict',
    });
  });

  it('keeps the host’s own HttpException thrown by a guarded handler once the token passed', async () => {
    const response = await fetch(`${app.url}/host/guarded-conflict`, { headers: bearer(await as.mint()) });
    expect(response.status).toBe(409);
    expect(await response.json()).toEqual({
      statusCode: 409,
      message: 'that name is taken',
      error: 'Conflict',
    });
  });

  it('still answers the guarded routes’ refusals with the RFC 6750 challenge', async () => {
    const missing = await fetch(`${app.url}/host/guarded-conflict`);
    expect(missing.status).toBe(401);
    expect(missing.headers.get('cache-control')).toBe('no-store');
    expect(bearerChallengeOf(missing).params).toEqual({
      resource_metadata: 'http://127.0.0.1:9/.well-known/oauth-protected-resource/api',
      scope: 'notes:read',
    });
    const forbidden = await fetch(`${app.url}/api/notes`, {
      method: 'POST',
      headers: bearer(await as.mint()),
    });
    expect(forbidden.status).toBe(403);
    expect(bearerChallengeOf(forbidden).params['error']).toBe('insufficient_scope');
    const malformed = await fetch(`${app.url}/api/me?access_token=x`);
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ error: 'invalid_request' });
  });
});
