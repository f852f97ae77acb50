import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  startAuthorizationServer,
  type AuthorizationServerFixture,
} from '../support/authorization-server.fixture.js';
import { nativeClient, register } from './registration.helpers.js';

describe('registration with DCR_INITIAL_ACCESS_TOKEN', () => {
  const initialAccessToken = randomBytes(32).toString('base64url');
  let as: AuthorizationServerFixture;
  beforeAll(async () => {
    as = await startAuthorizationServer({
      env: { DCR_INITIAL_ACCESS_TOKEN: initialAccessToken, RATE_LIMIT_REGISTER: '10000' },
    });
  });
  afterAll(async () => {
    await as?.close();
  });

  it('refuses a request without the token with 401 and a bare Bearer challenge, storing nothing', async () => {
    const response = await register(as, nativeClient());
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
    expect(response.body.error).toBe('invalid_token');
    expect(await as.prisma.client.count()).toBe(0);
  });

  it('refuses a wrong token with 401 invalid_token in the challenge, storing nothing', async () => {
    for (const token of [`${initialAccessToken}x`, initialAccessToken.slice(1), 'short']) {
      const response = await register(as, nativeClient(), { authorization: `Bearer ${token}` });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toContain('error="invalid_token"');
    }
    const basic = await register(as, nativeClient(), { authorization: `Basic ${initialAccessToken}` });
    expect(basic.status).toBe(401);
    expect(await as.prisma.client.count()).toBe(0);
  });

  it('registers with the token', async () => {
    const response = await register(as, nativeClient(), { authorization: `Bearer ${initialAccessToken}` });
    expect(response.status).toBe(201);
    expect(await as.prisma.client.count()).toBe(1);
  });
});

describe('registration rate limit (RATE_LIMIT_REGISTER)', () => {
  let as: AuthorizationServerFixture;
  beforeAll(async () => {
    as = await startAuthorizationServer({ env: { RATE_LIMIT_REGISTER: '2' } });
  });
  afterAll(async () => {
    await as?.close();
  });

  it('answers 429 with Retry-After past the limit, and stores nothing then', async () => {
    expect((await register(as, nativeClient())).status).toBe(201);
    expect((await register(as, nativeClient())).status).toBe(201);
    const limited = await register(as, nativeClient());
    expect(limited.status).toBe(429);
    expect(limited.body.error).toBe('temporarily_unavailable');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await as.prisma.client.count()).toBe(2);
  });
});

describe('registration under each revision', () => {
  it('is deprecated under 2026-07-28: advertised, working, and saying so with an RFC 9745 Deprecation header', async () => {
    const as = await startAuthorizationServer({ env: { SPEC_REVISION: '2026-07-28' } });
    try {
      const response = await register(as, nativeClient());
      expect(response.status).toBe(201);
      expect(response.headers.get('deprecation')).toBe(`@${Date.UTC(2026, 6, 28) / 1000}`);
    } finally {
      await as.close();
    }
  });

  // 2025-11-25 keeps registration as a MAY "for backwards compatibility", without deprecating it or asking for
  // application_type (https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#dynamic-client-registration).
  it.each(['2025-06-18', '2025-11-25'])(
    'under %s takes plain RFC 7591 metadata, deriving application_type, with no Deprecation header',
    async (revision) => {
      const as = await startAuthorizationServer({ env: { SPEC_REVISION: revision } });
      try {
        const metadata = await (await fetch(`${as.app.url}/.well-known/oauth-authorization-server`)).json();
        expect(metadata).toHaveProperty('registration_endpoint', `${as.issuer}/register`);
        const native = await register(as, nativeClient({ application_type: undefined }));
        expect(native.status).toBe(201);
        expect(native.headers.get('deprecation')).toBeNull();
        expect(native.body.application_type).toBe('native');
        const web = await register(
          as,
          nativeClient({ application_type: undefined, redirect_uris: ['https://app.example/cb'] }),
        );
        expect(web.body.application_type).toBe('web');
        // A sent application_type is still checked against the redirect URIs.
        const wrong = await register(as, nativeClient({ application_type: 'web' }));
        expect(wrong.body.error).toBe('invalid_client_metadata');
      } finally {
        await as.close();
      }
    },
  );

  it('is absent with DCR_ENABLED=false: 404 and no registration_endpoint', async () => {
    const as = await startAuthorizationServer({ env: { DCR_ENABLED: 'false' } });
    try {
      const metadata = await (await fetch(`${as.app.url}/.well-known/oauth-authorization-server`)).json();
      expect(metadata).not.toHaveProperty('registration_endpoint');
      const response = await register(as, nativeClient());
      expect(response.status).toBe(404);
      expect(await as.prisma.client.count()).toBe(0);
    } finally {
      await as.close();
    }
  });
});
