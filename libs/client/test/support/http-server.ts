// A real HTTP server on 127.0.0.1 with a random port, for tests that play a server role on the wire.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Handler = (
  request: IncomingMessage,
  response: ServerResponse,
  body: string,
) => void | Promise<void>;

export interface RunningServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  close(): Promise<void>;
}

export async function startServer(handler: Handler): Promise<RunningServer> {
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      Promise.resolve(handler(request, response, Buffer.concat(chunks).toString('utf8'))).catch(
        (error: unknown) => {
          if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain' });
          response.end(String(error));
        },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers });
  response.end(JSON.stringify(body));
}
