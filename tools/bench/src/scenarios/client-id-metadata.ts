/**
 * A client known by its client ID metadata document against a pre-registered client, on one authorization server
 * process: the same shape (public, `token_endpoint_auth_method` `none`, PKCE S256, one https redirect URI, the
 * authorization code and refresh token grants), the same person with a session and consent, so the two differ only
 * in how the server knows the client. The re-authorization flow (`/authorize` answered with a code at once, then
 * `/token`) per second, the document client as "ours", the pre-registered one as the peer.
 *
 * The document is served from a loopback HTTP server in this process with `Cache-Control: max-age=3600`; its URL is
 * the `client_id`, which the server takes because its issuer is on loopback and `CIMD_ALLOW_LOOPBACK=true` (the
 * development mode). Every fetch is counted: within the document's cache lifetime the server fetches it once.
 *
 * The redirect URI is https (never requested: the callback is only read): a public client on a loopback redirect
 * URI is asked for a click on every authorization (RFC 8252 8.6), which would measure a page, not the lookup.
 *
 * @see https://datatracker.ietf.org/doc/html/draft-ietf-oauth-client-id-metadata-document-00#section-4.4
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#client-id-metadata-documents
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ClientRepository } from '@portcullis/authorization';
import {
  authorize,
  authorizationRequest,
  HeadlessUserAgent,
  redeem,
  type TestClient,
} from '@portcullis/testing';
import { compare, own } from '../compare.js';
import { rssMiB } from '../load.js';
import type { ResultRow } from '../report.js';
import type { Settings } from '../settings.js';
import { expectOk, startOurs } from './authorization-server.js';

const REDIRECT_URI = 'https://bench-client.example/callback';
const DOCUMENT_PATH = '/clients/bench.json';
const GRANT_TYPES = ['authorization_code', 'refresh_token'];

/** A loopback HTTP server publishing one client ID metadata document, and how often it was fetched. */
interface DocumentServer {
  readonly clientId: string;
  readonly fetches: () => number;
  close(): Promise<void>;
}

async function startDocumentServer(): Promise<DocumentServer> {
  let fetches = 0;
  let body = '';
  const server: Server = createServer((request, response) => {
    if (request.method !== 'GET' || request.url !== DOCUMENT_PATH) {
      response.writeHead(404).end();
      return;
    }
    fetches += 1;
    response
      .writeHead(200, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        'cache-control': 'max-age=3600',
      })
      .end(body);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const clientId = `http://127.0.0.1:${port}${DOCUMENT_PATH}`;
  body = JSON.stringify({
    client_id: clientId,
    client_name: 'Bench client (metadata document)',
    redirect_uris: [REDIRECT_URI],
    grant_types: GRANT_TYPES,
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  });
  return {
    clientId,
    fetches: () => fetches,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export async function clientIdMetadataScenario(settings: Settings): Promise<ResultRow[]> {
  const documents = await startDocumentServer();
  try {
    const ours = await startOurs({ CIMD_ENABLED: 'true', CIMD_ALLOW_LOOPBACK: 'true' });
    try {
      const { issuer } = ours.cluster;
      const documentClient: TestClient = { clientId: documents.clientId, redirectUri: REDIRECT_URI };
      const registered = await new ClientRepository(ours.cluster.database.database.prisma).create({
        clientId: `bench-public-${randomBytes(4).toString('hex')}`,
        clientName: 'Bench client (pre-registered)',
        redirectUris: [REDIRECT_URI],
        grantTypes: GRANT_TYPES,
        responseTypes: ['code'],
        tokenEndpointAuthMethod: 'none',
        applicationType: 'web',
        origin: 'preregistered',
      });
      const registeredClient: TestClient = { clientId: registered.clientId, redirectUri: REDIRECT_URI };

      const n = settings.connections;
      const flow = async (ua: HeadlessUserAgent, client: TestClient, what: string) => {
        const request = authorizationRequest(issuer, client);
        const callback = await authorize(ua, request, ours.user, client);
        expectOk(await redeem(issuer, client, callback, request), what);
      };
      // One browser per worker and client, each with a session and consent (the first flow signs in and approves).
      const documentBrowsers = Array.from({ length: n }, () => new HeadlessUserAgent());
      const registeredBrowsers = Array.from({ length: n }, () => new HeadlessUserAgent());
      for (const ua of documentBrowsers)
        await flow(ua, documentClient, 'the token endpoint (document client)');
      for (const ua of registeredBrowsers)
        await flow(ua, registeredClient, 'the token endpoint (pre-registered client)');

      const before = documents.fetches();
      const result = await compare(
        settings,
        (worker) =>
          flow(own(documentBrowsers, worker), documentClient, 'the token endpoint (document client)'),
        (worker) =>
          flow(
            own(registeredBrowsers, worker),
            registeredClient,
            'the token endpoint (pre-registered client)',
          ),
        n,
      );
      const timed = documents.fetches() - before;
      const rss = rssMiB(ours.pid);
      return [
        {
          scenario: `client ID metadata document, c=${n}`,
          unit: 'flows/s',
          ours: { ...result.ours, rssMiB: rss },
          peer: { name: 'pre-registered', ...result.peer, rssMiB: rss },
          goal: { ratio: 0.9 },
          setup: `/authorize -> code -> /token, session and consent already there, public clients with PKCE, one process on PostgreSQL, document served with max-age=3600 and fetched ${timed} times while timed (warm-ups included), ${documents.fetches()} in all, ${settings.rounds}x${settings.seconds}s each`,
        },
      ];
    } finally {
      await ours.cluster.stop();
    }
  } finally {
    await documents.close();
  }
}
