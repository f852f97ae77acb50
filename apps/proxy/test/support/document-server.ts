// An https server on 127.0.0.1 publishing one client ID metadata document, for the client that identifies itself
// by URL.
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TestCertificates } from '@portcullis/testing';

export interface DocumentServer {
  /** `https://localhost:<port>/client.json`: the client ID. */
  readonly clientId: string;
  close(): Promise<void>;
}

export async function startDocumentServer(
  certificates: TestCertificates,
  document: (clientId: string) => Record<string, unknown>,
): Promise<DocumentServer> {
  let clientId = '';
  const server = createServer({ key: certificates.key, cert: certificates.cert }, (request, response) => {
    if (request.url !== '/client.json') {
      response.writeHead(404).end();
      return;
    }
    const body = JSON.stringify(document(clientId));
    response.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=300' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  clientId = `https://localhost:${(server.address() as AddressInfo).port}/client.json`;
  return {
    clientId,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
