import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ConfigError } from '@portcullis/platform';
import { HeadlessUserAgent, startDatabase, type TestDatabase } from '@portcullis/testing';
import { AppModule } from '../../src/app.module.js';
import { authorizationRequest } from '../support/authorization-server.fixture.js';
import { startCimdAuthorizationServer, tableLookup } from '../support/cimd-authorization-server.js';
import { makeTestCertificates } from '@portcullis/testing';
import { startDocumentServer, type DocumentServer } from '../support/cimd-document-server.js';

const REDIRECT_URI = 'http://127.0.0.1/callback';

describe('the client ID metadata document switch', () => {
  let database: TestDatabase;
  let documents: DocumentServer;
  let ca: string;
  beforeAll(async () => {
    database = await startDatabase();
    const certificates = makeTestCertificates();
    ca = certificates.ca;
    documents = await startDocumentServer(certificates);
  });
  afterAll(async () => {
    await documents?.close();
    await database?.stop();
  });

  async function metadataAndAuthorize(env: Record<string, string>) {
    const as = await startCimdAuthorizationServer({
      database,
      fetchOptions: { lookup: tableLookup({ localhost: ['127.0.0.1'] }), ca },
      env: { CIMD_ALLOW_LOOPBACK: 'true', ...env },
    });
    try {
      const metadata = (await (
        await fetch(`${as.app.url}/.well-known/oauth-authorization-server`)
      ).json()) as Record<string, unknown>;
      const path = `/clients/${randomBytes(4).toString('hex')}.json`;
      const clientId = documents.url(path);
      documents.serveJson(path, {
        client_id: clientId,
        client_name: 'Switch',
        redirect_uris: [REDIRECT_URI],
      });
      const response = await new HeadlessUserAgent().get(
        authorizationRequest(as, { clientId, redirectUri: REDIRECT_URI }).url,
      );
      return { metadata, status: response.status, body: response.body, fetches: documents.requests(path) };
    } finally {
      await as.close();
    }
  }

  it.each([
    ['on by default under 2025-11-25', { SPEC_REVISION: '2025-11-25' }],
    ['on by default under 2026-07-28', { SPEC_REVISION: '2026-07-28' }],
    ['on under 2025-06-18 with CIMD_ENABLED=true', { SPEC_REVISION: '2025-06-18', CIMD_ENABLED: 'true' }],
  ])('is %s: advertised, and a document URL is fetched', async (_name, env) => {
    const result = await metadataAndAuthorize(env);
    expect(result.metadata.client_id_metadata_document_supported).toBe(true);
    expect(result.status).toBe(303);
    expect(result.fetches).toBe(1);
  });

  it.each([
    ['off by default under 2025-06-18', { SPEC_REVISION: '2025-06-18' }],
    ['off under 2026-07-28 with CIMD_ENABLED=false', { SPEC_REVISION: '2026-07-28', CIMD_ENABLED: 'false' }],
  ])('is %s: not advertised, and a document URL is an unknown client, never fetched', async (_name, env) => {
    const result = await metadataAndAuthorize(env);
    expect(result.metadata).not.toHaveProperty('client_id_metadata_document_supported');
    expect(result.status).toBe(400);
    expect(result.body).toContain('unknown client');
    expect(result.fetches).toBe(0);
  });
});

describe('the client ID metadata document configuration', () => {
  it.each([
    ['an https issuer', 'https://auth.example.com'],
    ['a public host name that spells a loopback address', 'https://127.0.0.1.nip.io'],
  ])('refuses CIMD_ALLOW_LOOPBACK=true with %s at boot, naming the variable', async (_name, issuer) => {
    const configure = () => AppModule.configure({ ISSUER: issuer, CIMD_ALLOW_LOOPBACK: 'true' });
    await expect(configure()).rejects.toThrow(ConfigError);
    await expect(configure()).rejects.toThrow(
      'CIMD_ALLOW_LOOPBACK is only accepted when the ISSUER host is loopback',
    );
  });

  it('accepts CIMD_ALLOW_LOOPBACK=true with a loopback issuer', async () => {
    for (const issuer of ['http://localhost:4000', 'http://127.0.0.1:4000', 'http://[::1]:4000']) {
      await expect(
        AppModule.configure({ ISSUER: issuer, CIMD_ALLOW_LOOPBACK: 'true' }),
      ).resolves.toBeDefined();
    }
  });

  it('refuses a CIMD_ENABLED that is not true or false', async () => {
    await expect(AppModule.configure({ CIMD_ENABLED: 'yes' })).rejects.toThrow(/CIMD_ENABLED/);
  });
});
