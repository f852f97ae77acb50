import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { HeadlessUserAgent } from '@portcullis/testing';
import {
  authorizationRequest,
  type AuthorizationServerFixture,
} from '../support/authorization-server.fixture.js';
import {
  expectClientRefused,
  startCimdAuthorizationServer,
  tableLookup,
} from '../support/cimd-authorization-server.js';
import { makeTestCertificates } from '@portcullis/testing';
import { startDocumentServer, type DocumentServer } from '../support/cimd-document-server.js';

const REDIRECT_URI = 'http://127.0.0.1/callback';
const PATH = '/clients/shape.json';

describe('a client_id that is not a Client Identifier URL is an unknown client, never fetched', () => {
  let documents: DocumentServer;
  let plainDocuments: DocumentServer;
  let as: AuthorizationServerFixture;
  const lookup = tableLookup({ localhost: ['127.0.0.1'], 'cimd.test': ['127.0.0.1'] });
  beforeAll(async () => {
    const certificates = makeTestCertificates();
    documents = await startDocumentServer(certificates);
    plainDocuments = await startDocumentServer();
    // The development mode: without the URL rules, every one of these URLs would reach a server that answers.
    as = await startCimdAuthorizationServer({
      fetchOptions: { lookup, ca: certificates.ca },
      env: { CIMD_ALLOW_LOOPBACK: 'true' },
    });
  });
  afterAll(async () => {
    await as?.close();
    await documents?.close();
    await plainDocuments?.close();
  });

  /** Every path the servers answer for, serving a document that names `clientId`, as a lenient server would. */
  function serveEverywhere(clientId: string): void {
    const document = { client_id: clientId, client_name: 'Shape', redirect_uris: [REDIRECT_URI] };
    for (const server of [documents, plainDocuments]) {
      for (const path of ['/', PATH]) server.serveJson(path, document);
    }
  }

  function fetches(): number {
    return [documents, plainDocuments].reduce(
      (sum, server) => sum + server.requests('/') + server.requests(PATH) + server.connections,
      0,
    );
  }

  it('takes the well-formed URL (the servers answer)', async () => {
    const clientId = documents.url(PATH);
    serveEverywhere(clientId);
    const response = await new HeadlessUserAgent().get(
      authorizationRequest(as, { clientId, redirectUri: REDIRECT_URI }).url,
    );
    expect(response.status).toBe(303);
    expect(documents.requests(PATH)).toBe(1);
  });

  it.each([
    ['http on a host that is not loopback', () => `http://cimd.test:${plainDocuments.port}${PATH}`],
    ['no path', () => documents.origin],
    ['the path /', () => `${documents.origin}/`],
    ['a fragment', () => `${documents.url(PATH)}#frag`],
    ['an empty fragment', () => `${documents.url(PATH)}#`],
    ['userinfo', () => `https://user:pw@localhost:${documents.port}${PATH}`],
    ['a /./ segment', () => `${documents.origin}/./clients/shape.json`],
    ['a /../ segment', () => `${documents.origin}/x/../clients/shape.json`],
    ['a %2e%2e segment', () => `${documents.origin}/x/%2e%2e/clients/shape.json`],
    ['a .%2E segment', () => `${documents.origin}/x/.%2E/clients/shape.json`],
  ])('with %s', async (_name, url) => {
    const clientId = url();
    serveEverywhere(clientId);
    const fetched = fetches();
    const asked = lookup.asked.length;
    await expectClientRefused(as, clientId, REDIRECT_URI);
    expect(fetches()).toBe(fetched);
    expect(lookup.asked.length).toBe(asked);
  });
});
