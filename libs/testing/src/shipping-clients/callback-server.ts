// A native client's loopback redirect listener (RFC 8252 7.3): on the client's preferred port when it has one and
// the port is free (VS Code's 33418, the Inspector's 6274 and 6276), on an ephemeral port otherwise, as the clients
// do. It answers the browser's request for the callback and keeps what came.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CallbackServer {
  readonly port: number;
  /** Whether the preferred port was busy and another one is used. */
  readonly fellBack: boolean;
  /** The callbacks received (path and query, as sent). */
  readonly received: string[];
  close(): Promise<void>;
}

export async function startCallbackServer(preferredPort?: number): Promise<CallbackServer> {
  const received: string[] = [];
  const server = createServer((request, response) => {
    received.push(request.url ?? '/');
    response
      .writeHead(200, { 'content-type': 'text/plain' })
      .end('Authentication complete. You may close this window.');
  });
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      const onError = (error: Error) => reject(error);
      server.once('error', onError);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', onError);
        resolve();
      });
    });
  let fellBack = false;
  if (preferredPort === undefined) await listen(0);
  else {
    try {
      await listen(preferredPort);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
      fellBack = true;
      await listen(0);
    }
  }
  return {
    port: (server.address() as AddressInfo).port,
    fellBack,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
