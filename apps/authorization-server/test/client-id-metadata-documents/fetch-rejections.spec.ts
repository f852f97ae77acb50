import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { HeadlessUserAgent, metricValue, parseMetrics } from '@portcullis/testing';
import {
  authorizationRequest,
  type AuthorizationServerFixture,
} from '../support/authorization-server.fixture.js';
import {
  captureWarnings,
  refusals,
  expectClientRefused,
  startCimdAuthorizationServer,
  tableLookup,
  type CapturedWarning,
} from '../support/cimd-authorization-server.js';
import { makeTestCertificates } from '@portcullis/testing';
import {
  chunkedBody,
  startDocumentServer,
  tricklingBody,
  type DocumentServer,
  type StreamRecord,
} from '../support/cimd-document-server.js';

const REDIRECT_URI = 'http://127.0.0.1/callback';

describe('a client ID metadata document is refused, with nothing cached, persisted or redirected, when', () => {
  let documents: DocumentServer;
  let untrusted: DocumentServer;
  let as: AuthorizationServerFixture;
  let warnings: CapturedWarning[];
  beforeAll(async () => {
    const certificates = makeTestCertificates();
    documents = await startDocumentServer(certificates);
    untrusted = await startDocumentServer(makeTestCertificates());
    as = await startCimdAuthorizationServer({
      fetchOptions: {
        lookup: tableLookup({
          localhost: ['127.0.0.1'],
          'private.test': ['10.0.0.1'],
          'metadata.test': ['169.254.169.254'],
          'other.test': ['127.0.0.1'],
        }),
        ca: certificates.ca,
      },
      env: { CIMD_ALLOW_LOOPBACK: 'true' },
    });
    warnings = captureWarnings();
  });
  afterAll(async () => {
    await as?.close();
    await documents?.close();
    await untrusted?.close();
  });

  function validDocument(clientId: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
    return { client_id: clientId, client_name: 'Refused', redirect_uris: [REDIRECT_URI], ...overrides };
  }

  /**
   * `/authorize` answers the error page without redirecting and `/token` answers `invalid_client`; nothing is
   * written; the log names `reason`. Then the URL serves a valid document and is fetched again: the failure was
   * not cached.
   */
  async function expectRefused(
    path: string,
    reason: string,
    {
      server = documents,
      recheck = true,
      detail = '',
    }: { server?: DocumentServer; recheck?: boolean; detail?: string } = {},
  ): Promise<number> {
    const clientId = server.url(path);
    const fetches = async (outcome: string) =>
      metricValue(
        parseMetrics(await (await fetch(`${as.app.url}/metrics`)).text()),
        'portcullis_client_metadata_document_fetches_total',
        { outcome },
      );
    const [okBefore, refusedBefore] = [await fetches('ok'), await fetches(reason)];
    const { elapsedMs: elapsed } = await expectClientRefused(as, clientId, REDIRECT_URI);
    const logged = refusals(warnings, clientId);
    expect(logged.map((refusal) => refusal.reason)).toEqual([reason, reason]);
    for (const refusal of logged) expect(refusal.detail).toContain(detail);
    // Counted once each, as refused: never also as fetched `ok`.
    expect(await fetches('ok')).toBe(okBefore);
    expect(await fetches(reason)).toBe(refusedBefore + 2);

    if (!recheck) return elapsed;
    const fetched = server.requests(path);
    server.serveJson(path, validDocument(clientId));
    const retry = await new HeadlessUserAgent().get(
      authorizationRequest(as, { clientId, redirectUri: REDIRECT_URI }).url,
    );
    expect(retry.status).toBe(303);
    expect(new URL(retry.location!).pathname).toBe('/login');
    expect(server.requests(path)).toBe(fetched + 1);
    return elapsed;
  }

  describe('its client_id is not the URL byte for byte:', () => {
    it.each([
      ['a trailing slash', (url: string) => `${url}/`],
      ['an upper-case host', (url: string) => url.replace('localhost', 'LOCALHOST')],
      ['an upper-case scheme', (url: string) => url.replace('https:', 'HTTPS:')],
      ['another case in the path', (url: string) => url.replace('/clients/', '/Clients/')],
      ['the port spelt with a leading zero', (url: string) => url.replace(/:(\d+)\//, ':0$1/')],
      ['a percent-encoded path', (url: string) => url.replace('/clients/', '/%63lients/')],
    ])('%s', async (name, variant) => {
      const path = `/clients/mismatch-${name.replace(/\W+/g, '-')}.json`;
      documents.serveJson(path, validDocument(variant(documents.url(path))));
      await expectRefused(path, 'invalid_document', { detail: 'client_id_mismatch' });
    });
  });

  it('it answers 301 to the same host (the redirect is not followed)', async () => {
    const target = '/clients/moved-here.json';
    documents.serveJson(target, validDocument(documents.url('/clients/moved.json')));
    documents.route('/clients/moved.json', (_request, response) => {
      response.writeHead(301, { location: target }).end();
    });
    await expectRefused('/clients/moved.json', 'redirect');
    expect(documents.requests(target)).toBe(0);
  });

  it.each([
    [404, 'status'],
    [500, 'status'],
  ])('it answers %i', async (status, reason) => {
    const path = `/clients/status-${status}.json`;
    documents.route(path, (_request, response) => {
      response.writeHead(status, { 'content-type': 'application/json' }).end('{}');
    });
    await expectRefused(path, reason);
  });

  it('it declares a Content-Length of 6000 bytes', async () => {
    const path = '/clients/large.json';
    documents.route(path, (_request, response) => {
      const document = JSON.stringify(validDocument(documents.url(path)));
      const body = document.padEnd(6000, ' ');
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '6000' }).end(body);
    });
    await expectRefused(path, 'too_large');
  });

  it('it streams a 10 MiB chunked body: the fetch stops after the first few KiB', async () => {
    const path = '/clients/endless.json';
    const record: StreamRecord = { bytesWritten: 0, startedAt: 0 };
    documents.route(path, chunkedBody(10 * 1024 * 1024, record));
    await expectRefused(path, 'too_large');
    expect(record.closedAt).toBeDefined();
    expect(record.closedAt! - record.startedAt).toBeLessThan(1000);
    expect(record.bytesWritten).toBeLessThan(256 * 1024);
  });

  it('it sends one byte per second: the fetch is aborted after about 2.5 s', async () => {
    const path = '/clients/trickle.json';
    const record: StreamRecord = { bytesWritten: 0, startedAt: 0 };
    documents.route(path, tricklingBody(record));
    const elapsed = await expectRefused(path, 'timeout');
    expect(elapsed).toBeGreaterThanOrEqual(2_400);
    expect(elapsed).toBeLessThan(3_500);
    expect(record.closedAt).toBeDefined();
    expect(record.bytesWritten).toBeLessThanOrEqual(4);
  }, 20_000);

  it.each([
    ['not JSON', 'client_id=nope'],
    ['a JSON array', '[]'],
    ['not UTF-8', Buffer.from([0x7b, 0xff, 0x7d])],
  ])('its body is %s', async (name, body) => {
    const path = `/clients/body-${name.replace(/\W+/g, '-')}.json`;
    documents.route(path, (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' }).end(body);
    });
    await expectRefused(path, 'not_json');
  });

  it.each([
    [
      'client_secret_basic',
      { token_endpoint_auth_method: 'client_secret_basic' },
      'shared_secret_auth_method',
    ],
    ['client_secret_post', { token_endpoint_auth_method: 'client_secret_post' }, 'shared_secret_auth_method'],
    ['a client_secret', { client_secret: 'shared' }, 'client_secret_forbidden'],
    [
      'a private key in jwks',
      { jwks: { keys: [{ kty: 'EC', crv: 'P-256', x: 'x', y: 'y', d: 'd' }] } },
      'jwks_private_key',
    ],
    ['no redirect_uris', { redirect_uris: [] }, 'redirect_uris_missing'],
  ])('it declares %s', async (name, overrides, rule) => {
    const path = `/clients/declares-${name.replace(/\W+/g, '-')}.json`;
    documents.serveJson(path, validDocument(documents.url(path), overrides));
    await expectRefused(path, 'invalid_document', { detail: rule });
  });

  it.each([
    ['a right-to-left override', 'Notes\u202Eexe.ppa', 'U+202E'],
    ['a zero-width joiner', 'Note\u200Ds', 'U+200D'],
  ])('its client_name hides %s', async (name, clientName, codePoint) => {
    const path = `/clients/name-${name.replace(/\W+/g, '-')}.json`;
    documents.serveJson(path, validDocument(documents.url(path), { client_name: clientName }));
    const clients = await as.prisma.client.count();
    await expectRefused(path, 'invalid_document', {
      detail: `client_name_invisible_characters: client_name must not contain bidirectional control or zero-width characters (found ${codePoint})`,
    });
    expect(await as.prisma.client.count()).toBe(clients);
  });

  it('its server presents a certificate for another host name', async () => {
    const path = '/clients/misnamed.json';
    const clientId = `https://other.test:${documents.port}${path}`;
    documents.serveJson(path, validDocument(clientId));
    const response = await new HeadlessUserAgent().get(
      authorizationRequest(as, { clientId, redirectUri: REDIRECT_URI }).url,
    );
    expect(response.status).toBe(400);
    expect(response.location).toBeUndefined();
    expect(documents.requests(path)).toBe(0);
    const [refusal] = refusals(warnings, clientId);
    expect(refusal).toMatchObject({ reason: 'network' });
    expect(refusal!.detail).toContain('altnames');
  });

  it.each([
    ['10.0.0.1', 'private.test', 'private'],
    ['169.254.169.254', 'metadata.test', 'linkLocal'],
  ])('its host resolves to %s, even in the development mode', async (_address, host, range) => {
    const clientId = `https://${host}:${documents.port}/clients/internal.json`;
    const before = await as.counts();
    const response = await new HeadlessUserAgent().get(
      authorizationRequest(as, { clientId, redirectUri: REDIRECT_URI }).url,
    );
    expect(response.status).toBe(400);
    expect(response.location).toBeUndefined();
    expect(await as.counts()).toEqual(before);
    const [refusal] = refusals(warnings, clientId);
    expect(refusal).toMatchObject({ reason: 'address_refused' });
    expect(refusal!.detail).toContain(`a ${range} address`);
  });

  it('its server presents a certificate from a CA the server does not trust', async () => {
    const path = '/clients/untrusted.json';
    untrusted.serveJson(path, validDocument(untrusted.url(path)));
    await expectRefused(path, 'network', { server: untrusted, recheck: false, detail: 'certificate' });
    expect(untrusted.requests(path)).toBe(0);
  });
});
