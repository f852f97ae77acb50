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
  RESOURCE,
  redeem,
  type TestClient,
} from '@portcullis/testing';
import { compare } from '../compare.js';
import { rssMiB } from '../load.js';
import { PoolClient } from '../pool-client.js';
import { reauthorizationStep, type FlowClient } from '../raw-flow.js';
import type { ResultRow } from '../report.js';
import type { Settings } from '../settings.js';
import { expectOk, ourFlowServer, startOurs } from './authorization-server.js';

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
      // A session and consent per worker and client, untimed: the first flow of each browser signs in and approves;
      // its cookies are then replayed as a raw header on the timed flows.
      const sessions = async (client: TestClient, what: string): Promise<string[]> => {
        const cookies: string[] = [];
        for (let i = 0; i < n; i++) {
          const ua = new HeadlessUserAgent();
          const request = authorizationRequest(issuer, client);
          const callback = await authorize(ua, request, ours.user, client);
          expectOk(await redeem(issuer, client, callback, request), what);
          const cookie = ua.cookieJar.cookieHeader(`${issuer}/authorize`);
          if (!cookie) throw new Error(`no session cookie after signing in (${what})`);
          cookies.push(cookie);
        }
        return cookies;
      };
      const documentCookies = await sessions(documentClient, 'the token endpoint (document client)');
      const registeredCookies = await sessions(
        registeredClient,
        'the token endpoint (pre-registered client)',
      );
      // Public clients: no client authentication, `client_id` in the token request (RFC 6749 3.2.1).
      const flowClient = (client: TestClient): FlowClient => ({
        clientId: client.clientId,
        redirectUri: client.redirectUri,
        scope: 'notes:read',
        resource: RESOURCE,
      });

      const pool = new PoolClient(issuer, n);
      const before = documents.fetches();
      const result = await compare(
        settings,
        reauthorizationStep(ourFlowServer(pool), flowClient(documentClient), documentCookies),
        reauthorizationStep(ourFlowServer(pool), flowClient(registeredClient), registeredCookies),
        n,
      ).finally(() => pool.close());
      const timed = documents.fetches() - before;
      const rss = rssMiB(ours.pid);
      return [
        {
          scenario: `client ID metadata document, c=${n}`,
          unit: 'flows/s',
          connections: n,
          ours: { ...result.ours, rssMiB: rss },
          peer: { name: 'pre-registered', ...result.peer, rssMiB: rss },
          goal: { ratio: 0.9 },
          setup: `/authorize (its Location read) -> code -> /token, session cookie replayed, consent already there, public clients with PKCE, one process on PostgreSQL, document served with max-age=3600 and fetched ${timed} times while timed (warm-ups included), ${documents.fetches()} in all, ${settings.rounds}x${settings.seconds}s each`,
        },
      ];
    } finally {
      await ours.cluster.stop();
    }
  } finally {
    await documents.close();
  }
}
