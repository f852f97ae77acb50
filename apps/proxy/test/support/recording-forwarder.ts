// A transparent HTTP forwarder on a loopback port that records every exchange passing through it: what a server
// received (method, path, headers, body) and what it answered. Put in front of the upstream and of the protected
// server, it shows which tokens reached each. It can also hold requests unanswered, to play a slow server.
import {
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request and, once it ended, its response. */
export interface RecordedExchange {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  status?: number;
  responseHeaders?: IncomingHttpHeaders;
  responseBody?: string;
}

export interface RecordingForwarder {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  readonly exchanges: RecordedExchange[];
  /** Requests whose path starts with `prefix` are held without an answer until `stall(undefined)` or `close()`. */
  stall(prefix: string | undefined): void;
  /** Points the forwarder at the server behind it (until then every request fails). */
  forwardTo(target: string): void;
  close(): Promise<void>;
}

/** Starts a forwarder on a random loopback port, to `target` (`http://127.0.0.1:<port>`) or one set later. */
export async function startRecordingForwarder(target?: string): Promise<RecordingForwarder> {
  const exchanges: RecordedExchange[] = [];
  const held: ServerResponse[] = [];
  let stallPrefix: string | undefined;
  let upstream = target === undefined ? undefined : new URL(target);

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const exchange: RecordedExchange = {
        method: request.method ?? 'GET',
        path: request.url ?? '/',
        headers: request.headers,
        body: body.toString('utf8'),
      };
      exchanges.push(exchange);
      if (stallPrefix !== undefined && exchange.path.startsWith(stallPrefix)) {
        held.push(response);
        return;
      }
      if (!upstream) {
        exchange.status = 502;
        response.writeHead(502).end();
        return;
      }
      const forwarded = httpRequest(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: exchange.method,
          path: exchange.path,
          headers: request.headers,
        },
        (answer) => {
          exchange.status = answer.statusCode ?? 502;
          exchange.responseHeaders = answer.headers;
          response.writeHead(exchange.status, answer.rawHeaders);
          const received: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => {
            received.push(chunk);
            response.write(chunk);
          });
          answer.on('end', () => {
            exchange.responseBody = Buffer.concat(received).toString('utf8');
            response.end();
          });
          answer.on('error', () => response.destroy());
        },
      );
      forwarded.on('error', () => {
        exchange.status = 502;
        response.destroy();
      });
      response.on('close', () => forwarded.destroy());
      forwarded.end(body);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const actual = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${actual}`,
    port: actual,
    exchanges,
    forwardTo(next) {
      upstream = new URL(next);
    },
    stall(prefix) {
      stallPrefix = prefix;
      if (prefix === undefined) for (const response of held.splice(0)) response.destroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const response of held.splice(0)) response.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
