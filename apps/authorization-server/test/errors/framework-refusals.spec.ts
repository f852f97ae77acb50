import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { expectInvalidRequest } from '@portcullis/testing';
import {
  startAuthorizationServer,
  type AuthorizationServerFixture,
} from '../support/authorization-server.fixture.js';

/**
 * What the framework refuses before any handler runs is answered in the authorization server's error format
 * (RFC 6749 Section 5.2: `invalid_request`, `Cache-Control: no-store`) with the refusal's own status, never in
 * the framework's shape and never as a 5xx.
 */
describe('requests no handler serves, in the RFC 6749 error format', () => {
  let as: AuthorizationServerFixture;
  beforeAll(async () => {
    as = await startAuthorizationServer();
  });
  afterAll(async () => {
    await as?.close();
  });

  /** Asserts an `invalid_request` error response with `status`, and that the request persisted nothing. */
  const expectRefusal = (send: () => Promise<Response>, status: number, description: string) =>
    expectInvalidRequest(send, status, description, async () => ({
      ...(await as.counts()),
      clients: await as.prisma.client.count(),
    }));

  it('answers a path no route serves with 404 invalid_request', async () => {
    await expectRefusal(() => fetch(`${as.app.url}/no-such-endpoint`), 404, 'no such endpoint');
  });

  it('answers a method no route serves on a served path like an unknown route: 404, in the same format', async () => {
    // Fastify has no 405: a method without a route is an unknown route.
    await expectRefusal(() => fetch(`${as.app.url}/token`, { method: 'PATCH' }), 404, 'no such endpoint');
  });

  it('refuses a body over the 64 KiB limit with 413 invalid_request', async () => {
    await expectRefusal(
      () =>
        fetch(`${as.app.url}/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: `grant_type=refresh_token&refresh_token=${'r'.repeat(70 * 1024)}`,
        }),
      413,
      'the request body is too large',
    );
  });

  it('refuses a media type no parser takes with 415 invalid_request', async () => {
    await expectRefusal(
      () =>
        fetch(`${as.app.url}/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/xml' },
          body: '<grant_type>client_credentials</grant_type>',
        }),
      415,
      'unsupported content type',
    );
  });

  it('answers a URL the router cannot decode with 400 invalid_request, not the framework’s body', async () => {
    await expectRefusal(() => fetch(`${as.app.url}/authorize/%zz`), 400, 'the request is malformed');
  });
});
