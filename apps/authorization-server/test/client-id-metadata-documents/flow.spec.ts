import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { HeadlessUserAgent } from '@portcullis/testing';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import {
  authorizationRequest,
  authorize,
  redeem,
  RESOURCE,
  settle,
  tokenRequest,
  type AuthorizationServerFixture,
  type TestClient,
} from '../support/authorization-server.fixture.js';
import { startCimdAuthorizationServer, tableLookup } from '../support/cimd-authorization-server.js';
import { makeTestCertificates } from '@portcullis/testing';
import { startDocumentServer, type DocumentServer } from '../support/cimd-document-server.js';

const REDIRECT_URI = 'http://127.0.0.1/callback';

describe('a client identified by a client ID metadata document', () => {
  let documents: DocumentServer;
  let plainDocuments: DocumentServer;
  let as: AuthorizationServerFixture;
  beforeAll(async () => {
    const certificates = makeTestCertificates();
    documents = await startDocumentServer(certificates);
    plainDocuments = await startDocumentServer();
    as = await startCimdAuthorizationServer({
      fetchOptions: { lookup: tableLookup({ localhost: ['127.0.0.1'] }), ca: certificates.ca },
      env: { CIMD_ALLOW_LOOPBACK: 'true' },
    });
  });
  afterAll(async () => {
    await as?.close();
    await documents?.close();
    await plainDocuments?.close();
  });

  /** Publishes a valid document at `path` and returns the client it describes. */
  function publish(server: DocumentServer, path: string, headers: Record<string, string> = {}): TestClient {
    server.serveJson(
      path,
      {
        client_id: server.url(path),
        client_name: 'CIMD Notes',
        redirect_uris: [REDIRECT_URI],
        grant_types: ['authorization_code', 'refresh_token'],
      },
      headers,
    );
    return { clientId: server.url(path), redirectUri: REDIRECT_URI };
  }

  it('completes the flow twice, refresh included, with one fetch of the document within its cache lifetime', async () => {
    const client = publish(documents, '/clients/notes.json', { 'cache-control': 'max-age=300' });
    const user = await as.createUser();
    const jwks = createRemoteJWKSet(new URL(`${as.issuer}/jwks`));
    for (let round = 0; round < 2; round++) {
      const request = authorizationRequest(as, client, { scope: 'notes:read offline_access' });
      const callback = await authorize(new HeadlessUserAgent(), request, user, client);
      expect(callback.origin + callback.pathname).toBe(REDIRECT_URI);
      expect(callback.searchParams.get('iss')).toBe(as.issuer);
      expect(callback.searchParams.get('state')).toBe(request.state);

      const token = await redeem(as, client, callback, request);
      expect(token.status).toBe(200);
      const { payload } = await jwtVerify(token.body.access_token as string, jwks, {
        issuer: as.issuer,
        audience: RESOURCE,
      });
      expect(payload).toMatchObject({ client_id: client.clientId, sub: user.id });

      const refreshed = await tokenRequest(as, {
        grant_type: 'refresh_token',
        refresh_token: token.body.refresh_token as string,
        client_id: client.clientId,
        resource: RESOURCE,
      });
      expect(refreshed.status).toBe(200);
    }
    expect(documents.requests('/clients/notes.json')).toBe(1);
    expect(documents.lastHeaders('/clients/notes.json')).toMatchObject({ accept: 'application/json' });
    expect(documents.lastHeaders('/clients/notes.json')).not.toHaveProperty('cookie');
  });

  it('shares one fetch between concurrent authorization requests for one document', async () => {
    const path = '/clients/held.json';
    const client: TestClient = { clientId: documents.url(path), redirectUri: REDIRECT_URI };
    // The answer is held back so that both requests wait on the document together.
    documents.route(path, (_request, response) => {
      const body = JSON.stringify({
        client_id: client.clientId,
        client_name: 'Held',
        redirect_uris: [REDIRECT_URI],
      });
      setTimeout(() => response.writeHead(200, { 'content-type': 'application/json' }).end(body), 300);
    });
    const [first, second] = await Promise.all([
      new HeadlessUserAgent().get(authorizationRequest(as, client).url),
      new HeadlessUserAgent().get(authorizationRequest(as, client).url),
    ]);
    expect(first.status).toBe(303);
    expect(second.status).toBe(303);
    expect(documents.requests(path)).toBe(1);
  });

  it('shows the document host and the redirect host on the consent page, with the local-only warning', async () => {
    const client = publish(documents, '/clients/consent.json');
    const user = await as.createUser();
    const ua = new HeadlessUserAgent();
    const login = await settle(ua, await ua.get(authorizationRequest(as, client).url), () => false);
    const consent = await settle(
      ua,
      await ua.submit(login.response.form(), { username: user.username, password: user.password }),
      () => false,
    );
    expect(consent.response.status).toBe(200);
    const page = consent.response.body;
    expect(page).toContain(`<dt>Client ID host</dt><dd>localhost:${documents.port}</dd>`);
    expect(page).toContain('<dt>Will return you to</dt><dd>127.0.0.1</dd>');
    expect(page).toContain('CIMD Notes');
    expect(page).toContain('all its redirect addresses are local');
  });

  it('takes a private_key_jwt client at /authorize; /token, which verifies no client assertion, answers invalid_client', async () => {
    const path = '/clients/confidential.json';
    const clientId = documents.url(path);
    documents.serveJson(path, {
      client_id: clientId,
      client_name: 'Confidential',
      redirect_uris: [REDIRECT_URI],
      token_endpoint_auth_method: 'private_key_jwt',
      jwks_uri: documents.url('/clients/jwks.json'),
    });
    const client: TestClient = { clientId, redirectUri: REDIRECT_URI };
    const user = await as.createUser();
    const request = authorizationRequest(as, client);
    const callback = await authorize(new HeadlessUserAgent(), request, user, client);
    const token = await redeem(as, client, callback, request, {
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: 'eyJhbGciOiJFUzI1NiJ9.e30.sig',
    });
    expect(token.status).toBe(401);
    expect(token.body.error).toBe('invalid_client');
    expect((await redeem(as, client, callback, request)).body.error).toBe('invalid_client');
  });

  it('takes an http document on a loopback host in the development mode (CIMD_ALLOW_LOOPBACK)', async () => {
    const client = publish(plainDocuments, '/clients/dev.json');
    expect(client.clientId).toMatch(/^http:\/\/localhost:\d+\/clients\/dev\.json$/);
    const user = await as.createUser();
    const request = authorizationRequest(as, client);
    const callback = await authorize(new HeadlessUserAgent(), request, user, client);
    expect((await redeem(as, client, callback, request)).status).toBe(200);
  });
});
