import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { MAX_REGISTRATION_BODY } from '@portcullis/authorization';
import {
  startAuthorizationServer,
  type AuthorizationServerFixture,
} from '../support/authorization-server.fixture.js';
import { nativeClient, register } from './registration.helpers.js';

describe('the registration endpoint, before it reads any metadata,', () => {
  let as: AuthorizationServerFixture;
  beforeAll(async () => {
    as = await startAuthorizationServer({ env: { RATE_LIMIT_REGISTER: '10000' } });
  });
  afterAll(async () => {
    await as?.close();
  });

  /** Runs a request and asserts it stored no client. */
  async function storesNothing<T>(run: () => Promise<T>): Promise<T> {
    const before = await as.prisma.client.count();
    const result = await run();
    expect(await as.prisma.client.count()).toBe(before);
    return result;
  }

  /** A valid registration padded with `client_name` to exactly `size` bytes of JSON. */
  function padded(size: number): string {
    const base = JSON.stringify(nativeClient({ client_name: '' }));
    return JSON.stringify(nativeClient({ client_name: 'x'.repeat(size - base.length) }));
  }

  function chunked(text: string): Promise<Response> {
    const bytes = new TextEncoder().encode(text);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 4096) controller.enqueue(bytes.slice(i, i + 4096));
        controller.close();
      },
    });
    return fetch(`${as.app.url}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      duplex: 'half',
    } as RequestInit);
  }

  it('accepts a body of exactly 16 KiB', async () => {
    const body = padded(MAX_REGISTRATION_BODY);
    expect(Buffer.byteLength(body)).toBe(16 * 1024);
    expect((await register(as, body)).status).toBe(201);
  });

  it('refuses a 1 MiB body with 413 and an OAuth error body', async () => {
    const response = await storesNothing(() => register(as, padded(1024 * 1024)));
    expect(response.status).toBe(413);
    expect(response.body).toEqual({
      error: 'invalid_request',
      error_description: 'the request body is too large',
    });
    expect(response.headers.get('cache-control')).toBe('no-store');
  });

  it('refuses a body one byte over 16 KiB by its Content-Length, below the platform limit', async () => {
    const response = await storesNothing(() => register(as, padded(MAX_REGISTRATION_BODY + 1)));
    expect(response.status).toBe(413);
    expect(response.body.error).toBe('invalid_request');
  });

  it('refuses a chunked body over 16 KiB by the bytes received', async () => {
    const response = await storesNothing(() => chunked(padded(20 * 1024)));
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ error: 'invalid_request' });
  });

  it('refuses anything but application/json with 415', async () => {
    const response = await storesNothing(() =>
      register(as, JSON.stringify(nativeClient()), { 'content-type': 'text/plain' }),
    );
    expect(response.status).toBe(415);
    expect(response.body).toEqual({
      error: 'invalid_request',
      error_description: 'unsupported content type',
    });
  });

  it('refuses malformed JSON with 400 invalid_client_metadata', async () => {
    const response = await storesNothing(() => register(as, '{"redirect_uris": ['));
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      error: 'invalid_client_metadata',
      error_description:
        'the client metadata must be a JSON object without __proto__ or constructor.prototype members',
    });
  });

  describe('lets no __proto__ member pollute anything:', () => {
    const cases: [string, string][] = [
      ['at the top', '{"__proto__": {"polluted": "yes"}, "client_name": "x"}'],
      [
        'beside valid metadata',
        JSON.stringify(nativeClient()).replace(
          '{',
          '{"__proto__": {"polluted": "yes", "token_endpoint_auth_method": "none"},',
        ),
      ],
      [
        'nested in jwks',
        JSON.stringify(nativeClient({ jwks: { keys: [] } })).replace(
          '"keys"',
          '"__proto__": {"polluted": "yes"}, "keys"',
        ),
      ],
      ['in constructor.prototype', '{"constructor": {"prototype": {"polluted": "yes"}}}'],
    ];
    it.each(cases)('%s', async (_name, body) => {
      const response = await storesNothing(() => register(as, body));
      // What the client sees is an RFC 7591 error, never the platform's own error format.
      expect(response.status).toBe(400);
      expect(response.body).toEqual({
        error: 'invalid_client_metadata',
        error_description:
          'the client metadata must be a JSON object without __proto__ or constructor.prototype members',
      });
      expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
      expect(Object.prototype).not.toHaveProperty('polluted');
      // A later registration is unaffected.
      const next = await register(as, nativeClient());
      expect(next.status).toBe(201);
      expect(next.body).not.toHaveProperty('polluted');
      const row = await as.prisma.client.findUniqueOrThrow({ where: { id: next.body.client_id as string } });
      expect(row.metadata).not.toHaveProperty('polluted');
    });
  });
});
