import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { expectInvalidRequest, freePort } from '@portcullis/testing';
import { startProxy, type ProxyFixture } from '../support/proxy.fixture.js';

/**
 * What the framework refuses before any handler runs is answered in the proxy's error format (RFC 6749 Section 5.2:
 * `invalid_request`, `Cache-Control: no-store`) with the refusal's own status, never in the framework's shape and
 * never as a 5xx. The upstream is never contacted.
 */
describe('requests no handler serves, in the RFC 6749 error format', () => {
  let proxy: ProxyFixture;
  beforeAll(async () => {
    proxy = await startProxy({
      port: await freePort(),
      upstream: { issuer: 'http://127.0.0.1:9', clientId: 'unused', clientSecret: 'unused' },
      resource: 'http://127.0.0.1:9/mcp',
    });
  });
  afterAll(async () => {
    await proxy?.close();
  });

  /** Asserts an `invalid_request` error response with `status`, and that the request persisted nothing. */
  const expectRefusal = (send: () => Promise<Response>, status: number, description: string) =>
    expectInvalidRequest(send, status, description, () => proxy.counts());

  it('answers a path no route serves with 404 invalid_request', async () => {
    await expectRefusal(() => fetch(`${proxy.issuer}/no-such-endpoint`), 404, 'no such endpoint');
  });

  it('answers a method no route serves on a served path like an unknown route: 404, in the same format', async () => {
    // Fastify has no 405: a method without a route is an unknown route.
    await expectRefusal(
      () => fetch(`${proxy.issuer}/upstream/callback`, { method: 'PATCH' }),
      404,
      'no such endpoint',
    );
  });

  it('refuses a body over the 64 KiB limit with 413 invalid_request', async () => {
    await expectRefusal(
      () =>
        fetch(`${proxy.issuer}/token`, {
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
        fetch(`${proxy.issuer}/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/xml' },
          body: '<grant_type>client_credentials</grant_type>',
        }),
      415,
      'unsupported content type',
    );
  });

  it('answers a URL the router cannot decode with 400 invalid_request, not the framework’s body', async () => {
    await expectRefusal(() => fetch(`${proxy.issuer}/upstream/%zz`), 400, 'the request is malformed');
  });
});
