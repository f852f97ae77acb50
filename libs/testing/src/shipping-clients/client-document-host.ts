// The documents shipping clients publish (client ID metadata documents, a JWKS), served from loopback under their
// real URLs: one https server whose certificate names every client host, and a resolver that maps those hosts (and
// port 443) to it. The server under test gets the resolver and the CA as its test-only fetch options, so it fetches
// `https://claude.ai/oauth/claude-code-client-metadata` exactly as it would the real one, through its SSRF guard
// (which must allow loopback: CIMD_ALLOW_LOOPBACK) and TLS verification.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { makeTestCertificates } from '../certificates.js';
import type { ShippingClient } from './shipping-client.js';

/** One answer of the resolver: the address, and the port that stands in for the URL's. */
export interface MappedAddress {
  readonly address: string;
  readonly family: 4 | 6;
  readonly port?: number;
}

export interface ClientDocumentHost {
  /** What the server under test fetches documents with (`metadataDocumentFetch`). */
  readonly fetchOverrides: {
    readonly lookup: (hostname: string) => Promise<readonly MappedAddress[]>;
    readonly ca: string;
  };
  /** How many times `url` was fetched. */
  requests(url: string): number;
  close(): Promise<void>;
}

/** Serves every document of `clients` under its real URL; other names do not resolve. */
export async function startClientDocumentHost(
  clients: readonly ShippingClient[],
): Promise<ClientDocumentHost> {
  const documents = new Map<string, string>();
  for (const client of clients) {
    for (const [url, document] of Object.entries(await client.documents())) {
      const parsed = new URL(url);
      if (parsed.protocol !== 'https:' || parsed.port !== '')
        throw new TypeError(`not an https URL on 443: ${url}`);
      documents.set(`${parsed.hostname}${parsed.pathname}${parsed.search}`, JSON.stringify(document));
    }
  }
  const hosts = [...new Set([...documents.keys()].map((key) => key.slice(0, key.indexOf('/'))))];
  const certificates = makeTestCertificates({ hosts });
  const counts = new Map<string, number>();
  const server = createServer(
    { key: certificates.key, cert: certificates.cert },
    (request: IncomingMessage, response: ServerResponse) => {
      const host = (request.headers.host ?? '').replace(/:\d+$/u, '');
      const key = `${host}${request.url ?? '/'}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
      const body = documents.get(key);
      if (body === undefined || request.method !== 'GET') {
        response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
        return;
      }
      response
        .writeHead(200, {
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          'cache-control': 'max-age=300',
        })
        .end(body);
    },
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const known = new Set(hosts);
  return {
    fetchOverrides: {
      ca: certificates.ca,
      lookup: async (hostname) => {
        if (!known.has(hostname.toLowerCase())) {
          throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
        }
        return [{ address: '127.0.0.1', family: 4, port }];
      },
    },
    requests: (url) => {
      const parsed = new URL(url);
      return counts.get(`${parsed.hostname}${parsed.pathname}${parsed.search}`) ?? 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
