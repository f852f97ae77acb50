import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AuthorizationServerMetadataSchema, OpenIdProviderMetadataSchema } from '@portcullis/metadata';
import { ConfigError } from '@portcullis/platform';
import { freePort, startApp, type TestApp } from '@portcullis/testing';
import { AppModule } from '../../src/app.module.js';
import {
  startAuthorizationServer,
  type AuthorizationServerFixture,
} from '../support/authorization-server.fixture.js';

describe('authorization server metadata', () => {
  let as: AuthorizationServerFixture;
  beforeAll(async () => {
    as = await startAuthorizationServer();
  });
  afterAll(async () => {
    await as?.close();
  });

  it('serves one document at the RFC 8414 and OIDC URLs, with the issuer byte for byte', async () => {
    const oauth = await fetch(`${as.app.url}/.well-known/oauth-authorization-server`);
    const openid = await fetch(`${as.app.url}/.well-known/openid-configuration`);
    expect(oauth.status).toBe(200);
    const document = (await oauth.json()) as Record<string, unknown>;
    expect(await openid.json()).toEqual(document);
    expect(AuthorizationServerMetadataSchema.parse(document)).toBeTruthy();
    expect(OpenIdProviderMetadataSchema.parse(document)).toBeTruthy();
    expect(document).toMatchObject({
      issuer: as.issuer,
      authorization_endpoint: `${as.issuer}/authorize`,
      token_endpoint: `${as.issuer}/token`,
      jwks_uri: `${as.issuer}/jwks`,
      userinfo_endpoint: `${as.issuer}/userinfo`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: [
        'none',
        'client_secret_basic',
        'client_secret_post',
        'private_key_jwt',
      ],
      token_endpoint_auth_signing_alg_values_supported: expect.arrayContaining([
        'ES256',
        'RS256',
        'PS256',
        'EdDSA',
      ]),
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['ES256'],
      authorization_response_iss_parameter_supported: true,
    });
    expect(document.scopes_supported).toEqual(
      expect.arrayContaining(['openid', 'offline_access', 'notes:read', 'notes:write']),
    );
  });

  it('allows CORS on metadata, JWKS and token, including the token preflight', async () => {
    for (const path of [
      '/.well-known/oauth-authorization-server',
      '/.well-known/openid-configuration',
      '/jwks',
    ]) {
      const response = await fetch(`${as.app.url}${path}`, { headers: { origin: 'https://app.example' } });
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
    }
    const preflight = await fetch(`${as.app.url}/token`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-methods')).toBe('POST');
    expect(preflight.headers.get('access-control-allow-headers')).toContain('Authorization');
  });

  it('answers a path that is not the issuer path with 404', async () => {
    const response = await fetch(`${as.app.url}/.well-known/oauth-authorization-server/tenant2`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: 'invalid_request',
      error_description: 'no such endpoint',
    });
  });

  it('publishes public keys only', async () => {
    const jwks = (await (await fetch(`${as.app.url}/jwks`)).json()) as { keys: Record<string, unknown>[] };
    expect(jwks.keys).toHaveLength(1);
    expect(jwks.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
    expect(jwks.keys[0]).not.toHaveProperty('d');
  });
});

describe('an issuer with a path', () => {
  let app: TestApp;
  let issuer: string;
  beforeAll(async () => {
    const port = await freePort();
    issuer = `http://localhost:${port}/tenant1`;
    app = await startApp(AppModule, {
      port,
      env: { ISSUER: issuer, COOKIE_SECRET: randomBytes(32).toString('hex') },
    });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('serves the path-inserted RFC 8414 and OIDC forms and the path-appended OIDC form', async () => {
    const urls = [
      `${app.url}/.well-known/oauth-authorization-server/tenant1`,
      `${app.url}/.well-known/openid-configuration/tenant1`,
      `${app.url}/tenant1/.well-known/openid-configuration`,
    ];
    for (const url of urls) {
      const response = await fetch(url);
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ issuer, token_endpoint: `${issuer}/token` });
    }
    expect((await fetch(`${app.url}/.well-known/oauth-authorization-server`)).status).toBe(404);
  });

  it('serves its endpoints under the issuer path', async () => {
    expect((await fetch(`${app.url}/tenant1/jwks`)).status).toBe(200);
    const token = await fetch(`${app.url}/tenant1/token`, { method: 'POST' });
    expect(token.status).toBe(400);
    expect((await fetch(`${app.url}/jwks`)).status).toBe(404);
  });
});

describe('the issuer configuration', () => {
  it.each([
    ['http on a public host', 'http://auth.example.com', 'must be https (http only on a loopback host)'],
    ['a trailing slash', 'https://auth.example.com/', 'must not end with /'],
    ['a query', 'https://auth.example.com?x=1', 'must not have a query, fragment or userinfo'],
    ['no scheme', 'auth.example.com', 'must be an absolute URL'],
  ])('refuses %s at boot, naming ISSUER', async (_name, value, message) => {
    await expect(AppModule.configure({ ISSUER: value })).rejects.toThrow(ConfigError);
    await expect(AppModule.configure({ ISSUER: value })).rejects.toThrow(`ISSUER ${message}`);
  });

  it('accepts https anywhere and http on loopback', async () => {
    await expect(AppModule.configure({ ISSUER: 'https://auth.example.com' })).resolves.toBeDefined();
    await expect(AppModule.configure({ ISSUER: 'http://127.0.0.1:4000' })).resolves.toBeDefined();
  });

  it('requires COOKIE_SECRET and KEY_ENCRYPTION_KEY in production, and a well-formed key', async () => {
    await expect(
      AppModule.configure({ NODE_ENV: 'production', ISSUER: 'https://a.example' }),
    ).rejects.toThrow(
      /COOKIE_SECRET is required in production.*KEY_ENCRYPTION_KEY is required in production/,
    );
    await expect(AppModule.configure({ KEY_ENCRYPTION_KEY: 'short' })).rejects.toThrow(
      'KEY_ENCRYPTION_KEY must be 32 bytes',
    );
  });

  it('refuses a resource configuration that is not canonical', async () => {
    const resources = JSON.stringify([{ uri: 'HTTP://Example.com/mcp', scopes_supported: ['a'] }]);
    await expect(AppModule.configure({ RESOURCES: resources })).rejects.toThrow(
      'RESOURCES.0.uri must be a canonical resource URI',
    );
  });
});
