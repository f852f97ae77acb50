import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { HeadlessUserAgent } from '@portcullis/testing';
import {
  authorizationRequest,
  startAuthorizationServer,
  type AuthorizationServerFixture,
  type TestClient,
} from '../support/authorization-server.fixture.js';

describe('the authorization endpoint refuses', () => {
  let as: AuthorizationServerFixture;
  let client: TestClient;
  let loopbackClient: TestClient;
  let localhostClient: TestClient;
  beforeAll(async () => {
    as = await startAuthorizationServer();
    client = await as.createClient({ redirectUris: ['https://app.example.com/cb'] });
    loopbackClient = await as.createClient({ redirectUris: ['http://127.0.0.1/callback'] });
    localhostClient = await as.createClient({ redirectUris: ['http://localhost/callback'] });
  });
  afterAll(async () => {
    await as?.close();
  });

  /** A rejected request writes nothing an authorization would write. */
  async function expectNothingWritten(run: () => Promise<void>): Promise<void> {
    const before = await as.counts();
    const pending = await as.prisma.pendingAuthorization.count();
    await run();
    expect(await as.counts()).toEqual(before);
    expect(await as.prisma.pendingAuthorization.count()).toBe(pending);
  }

  describe('with an error page and no redirect, a redirect URI that is not exactly the registered one', () => {
    const variants = [
      'https://app.example.com/cbx',
      'https://app.example.com/cb/../x',
      'https://app.example.com/cb?x=1',
      'https://app.example.com/cb#f',
      'HTTPS://app.example.com/cb',
      'https://app.example.com:443/cb',
      'https://app.example.com/cb/',
      'https://app.example.com/%63b',
      'https://app@evil/cb',
      'https://evil.example/cb',
    ];
    it.each(variants)('%s', async (redirectUri) => {
      await expectNothingWritten(async () => {
        const response = await new HeadlessUserAgent().get(
          authorizationRequest(as, client, { redirect_uri: redirectUri }).url,
        );
        expect(response.status).toBe(400);
        expect(response.location).toBeUndefined();
        expect(response.headers.get('content-type')).toContain('text/html');
        expect(response.body).toContain('redirect_uri is not registered for this client');
      });
    });

    it('localhost for a registered 127.0.0.1', async () => {
      await expectNothingWritten(async () => {
        const response = await new HeadlessUserAgent().get(
          authorizationRequest(as, loopbackClient, { redirect_uri: 'http://localhost/callback' }).url,
        );
        expect(response.status).toBe(400);
        expect(response.location).toBeUndefined();
      });
    });

    it.each([
      'http://localhost.evil.example:53076/callback',
      'http://LOCALHOST:53076/callback',
      'https://localhost:53076/callback',
      'http://127.0.0.1:53076/callback',
      'http://localhost:53076/callback/x',
      'http://localhost:53076/callback?x=1',
      'http://user@localhost:53076/callback',
    ])('%s for a registered http://localhost/callback (only the port is free)', async (redirectUri) => {
      await expectNothingWritten(async () => {
        const response = await new HeadlessUserAgent().get(
          authorizationRequest(as, localhostClient, { redirect_uri: redirectUri }).url,
        );
        expect(response.status).toBe(400);
        expect(response.location).toBeUndefined();
        expect(response.body).toContain('redirect_uri is not registered for this client');
      });
    });

    it('a redirect_uri sent twice', async () => {
      const request = authorizationRequest(as, client);
      const response = await new HeadlessUserAgent().get(
        `${request.url}&redirect_uri=https%3A%2F%2Fevil.example%2Fcb`,
      );
      expect(response.status).toBe(400);
      expect(response.location).toBeUndefined();
    });

    it('an unknown client', async () => {
      await expectNothingWritten(async () => {
        const response = await new HeadlessUserAgent().get(
          authorizationRequest(as, { ...client, clientId: 'nobody' }).url,
        );
        expect(response.status).toBe(400);
        expect(response.location).toBeUndefined();
        expect(response.body).toContain('unknown client');
      });
    });
  });

  it('accepts any port on a registered loopback IP redirect (RFC 8252 7.3)', async () => {
    const response = await new HeadlessUserAgent().get(
      authorizationRequest(as, loopbackClient, { redirect_uri: 'http://127.0.0.1:53123/callback' }).url,
    );
    expect(response.status).toBe(303);
    expect(new URL(response.location!).pathname).toBe('/login');
  });

  it('accepts any port on a registered http://localhost redirect, as shipping MCP clients send it (OAuth 2.1 8.4.2)', async () => {
    const response = await new HeadlessUserAgent().get(
      authorizationRequest(as, localhostClient, { redirect_uri: 'http://localhost:53076/callback' }).url,
    );
    expect(response.status).toBe(303);
    expect(new URL(response.location!).pathname).toBe('/login');
  });

  describe('with an error sent to the client, carrying state and iss', () => {
    const cases: [string, Record<string, string | undefined>, string, string][] = [
      [
        'no code_challenge',
        { code_challenge: undefined },
        'invalid_request',
        'code_challenge is required (PKCE)',
      ],
      [
        'the plain method',
        { code_challenge_method: 'plain' },
        'invalid_request',
        'code_challenge_method must be S256',
      ],
      [
        'no method (plain)',
        { code_challenge_method: undefined },
        'invalid_request',
        'code_challenge_method must be S256',
      ],
      [
        'a 42-character challenge',
        { code_challenge: 'a'.repeat(42) },
        'invalid_request',
        'code_challenge must be 43 base64url characters (S256)',
      ],
      [
        'an unknown resource',
        { resource: 'https://other.example/mcp' },
        'invalid_target',
        'unknown resource',
      ],
      [
        'a resource with a fragment',
        { resource: 'http://localhost:4100/mcp#x' },
        'invalid_target',
        'must not contain a fragment',
      ],
      ['a relative resource', { resource: '/mcp' }, 'invalid_target', 'must be an absolute URI'],
      [
        'a scope the resource lacks',
        { scope: 'notes:read admin' },
        'invalid_scope',
        'scope not offered for this resource: admin',
      ],
      [
        'response_type=token',
        { response_type: 'token' },
        'unsupported_response_type',
        'only response_type=code is supported',
      ],
      ['an unknown prompt', { prompt: 'maybe' }, 'invalid_request', 'unsupported prompt value: maybe'],
    ];
    it.each(cases)('%s', async (_name, overrides, error, description) => {
      await expectNothingWritten(async () => {
        const request = authorizationRequest(as, client, overrides);
        const response = await new HeadlessUserAgent().get(request.url);
        expect(response.status).toBe(303);
        const location = new URL(response.location!);
        expect(location.origin + location.pathname).toBe('https://app.example.com/cb');
        expect(location.searchParams.get('error')).toBe(error);
        expect(location.searchParams.get('error_description')).toContain(description);
        expect(location.searchParams.get('state')).toBe(request.state);
        expect(location.searchParams.get('iss')).toBe(as.issuer);
        expect(location.searchParams.get('code')).toBeNull();
      });
    });

    it('a duplicated parameter', async () => {
      await expectNothingWritten(async () => {
        const request = authorizationRequest(as, client);
        const response = await new HeadlessUserAgent().get(`${request.url}&scope=notes%3Awrite`);
        expect(response.status).toBe(303);
        const location = new URL(response.location!);
        expect(location.searchParams.get('error')).toBe('invalid_request');
        expect(location.searchParams.get('error_description')).toBe('parameter sent more than once: scope');
        expect(location.searchParams.get('iss')).toBe(as.issuer);
      });
    });

    it('two resources at once', async () => {
      await expectNothingWritten(async () => {
        const request = authorizationRequest(as, client);
        const response = await new HeadlessUserAgent().get(
          `${request.url}&resource=https%3A%2F%2Fother.example`,
        );
        expect(new URL(response.location!).searchParams.get('error')).toBe('invalid_target');
      });
    });
  });

  it('never allows CORS on /authorize', async () => {
    const response = await fetch(authorizationRequest(as, client).url, {
      redirect: 'manual',
      headers: { origin: 'https://evil.example' },
    });
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });
});
