import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { REVISIONS, type RevisionId } from '@portcullis/revisions';
import { expectBootedApp, startApp, type TestApp } from '@portcullis/testing';
import { AppModule } from '../src/app.module.js';

/**
 * What the metadata says differently per revision: client ID metadata documents are advertised by default from
 * 2025-11-25 on (https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#discovery). Typed by
 * revision, so a new revision cannot be accepted without a row here.
 */
const ADVERTISES_METADATA_DOCUMENTS: Record<RevisionId, boolean> = {
  '2025-06-18': false,
  '2025-11-25': true,
  '2026-07-28': true,
};

describe.each(REVISIONS)('the authorization-server under SPEC_REVISION=%s', (revision) => {
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

  it('serves its metadata, with client ID metadata documents as the revision has them', async () => {
    const response = await fetch(`${app.url}/.well-known/oauth-authorization-server`);
    expect(response.status).toBe(200);
    const metadata = (await response.json()) as Record<string, unknown>;
    expect(metadata['issuer']).toBe('http://localhost:4000');
    expect(metadata['client_id_metadata_document_supported']).toBe(
      ADVERTISES_METADATA_DOCUMENTS[revision] ? true : undefined,
    );
  });
});

describe('the authorization-server configuration', () => {
  describe('in production', () => {
    const secrets = {
      NODE_ENV: 'production',
      METRICS: 'off',
      COOKIE_SECRET: 'c'.repeat(43),
      KEY_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
    };
    const complete = {
      ...secrets,
      ISSUER: 'https://auth.example.com',
      RESOURCES: JSON.stringify([{ uri: 'https://mcp.example.com/mcp', scopes_supported: ['notes:read'] }]),
      DATABASE_URL: 'postgresql://portcullis@db.example.com/portcullis',
      REDIS_URL: 'redis://redis.example.com:6379',
    };

    it('starts with its issuer, resources, database and Redis named', async () => {
      await expect(AppModule.configure(complete)).resolves.toBeDefined();
    });

    it('refuses to guess: each development default left in place is named', async () => {
      await expect(AppModule.configure(secrets)).rejects.toThrow(
        /DATABASE_URL is required in production .*ISSUER is required in production .*RESOURCES is required in production .*REDIS_URL is required in production .*or set SINGLE_INSTANCE=true/,
      );
    });

    it('keeps the embedded database and in-process state only when told to', async () => {
      const { DATABASE_URL: _database, REDIS_URL: _redis, ...rest } = complete;
      await expect(
        AppModule.configure({ ...rest, ALLOW_EMBEDDED_DATABASE: 'true', SINGLE_INSTANCE: 'true' }),
      ).resolves.toBeDefined();
    });

    it('refuses an http issuer unless a loopback issuer is allowed on purpose', async () => {
      await expect(AppModule.configure({ ...complete, ISSUER: 'http://127.0.0.1:4000' })).rejects.toThrow(
        'ISSUER must be https in production (or set ALLOW_LOOPBACK_ISSUER=true',
      );
      await expect(
        AppModule.configure({ ...complete, ISSUER: 'http://127.0.0.1:4000', ALLOW_LOOPBACK_ISSUER: 'true' }),
      ).resolves.toBeDefined();
    });
  });

  it('refuses an SPEC_REVISION that is not a known revision, naming the known ones', async () => {
    await expect(AppModule.configure({ SPEC_REVISION: '2025-03-26' })).rejects.toThrow(
      `SPEC_REVISION must be one of ${REVISIONS.join(', ')}`,
    );
  });

  it.each(['email', 'profile'])(
    'refuses a resource that defines a scope named %s, naming RESOURCES (an OpenID Connect scope of its own)',
    async (scope) => {
      const RESOURCES = JSON.stringify([
        { uri: 'https://mail.example/mcp', scopes_supported: ['mail:send', scope] },
      ]);
      await expect(AppModule.configure({ RESOURCES })).rejects.toThrow(
        `RESOURCES.0.scopes_supported.1 must not be ${scope}: the authorization server grants the OpenID Connect scope`,
      );
    },
  );
});
