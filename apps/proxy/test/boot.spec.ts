import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { REVISIONS } from '@portcullis/revisions';
import { expectBootedApp, startApp, type TestApp } from '@portcullis/testing';
import { AppModule } from '../src/app.module.js';

describe.each(REVISIONS)('the proxy under SPEC_REVISION=%s', (revision) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp(AppModule, { env: { SPEC_REVISION: revision } });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('is alive and ready once its database is migrated, and echoes sane request ids', async () => {
    await expectBootedApp(app);
  });

  it('serves its authorization server metadata', async () => {
    const response = await fetch(`${app.url}/.well-known/oauth-authorization-server`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ issuer: 'http://localhost:4200' });
  });
});

describe('the proxy in production', () => {
  const complete = {
    NODE_ENV: 'production',
    METRICS: 'off',
    COOKIE_SECRET: 'c'.repeat(43),
    KEY_ENCRYPTION_KEY: Buffer.alloc(32, 9).toString('base64'),
    ISSUER: 'https://mcp-auth.example.com',
    RESOURCES: JSON.stringify([{ uri: 'https://mcp.example.com/mcp', scopes_supported: ['notes:read'] }]),
    DATABASE_URL: 'postgresql://portcullis@db.example.com/proxy',
    REDIS_URL: 'redis://redis.example.com:6379',
    UPSTREAM_PROVIDER: 'github',
    UPSTREAM_CLIENT_ID: 'Ov23li0',
    UPSTREAM_CLIENT_SECRET: 's3cret',
  };

  it('starts with its issuer, resources, database, Redis and upstream named', async () => {
    await expect(AppModule.configure(complete)).resolves.toBeDefined();
  });

  it.each(['ISSUER', 'RESOURCES', 'DATABASE_URL', 'REDIS_URL'])(
    'refuses to start on the development default of %s, naming it',
    async (name) => {
      const env: Record<string, string> = { ...complete };
      delete env[name];
      await expect(AppModule.configure(env)).rejects.toThrow(`${name} is required in production`);
    },
  );
});
