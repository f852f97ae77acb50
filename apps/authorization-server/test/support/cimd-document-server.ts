import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TestCertificates } from '@portcullis/testing';

export type RouteHandler = (request: IncomingMessage, response: ServerResponse) => void | Promise<void>;

/** A server publishing client ID metadata documents (or misbehaving on purpose), counting what it is asked. */
export interface DocumentServer {
  /** `https://localhost:<port>` (or `http://` without certificates). */
  readonly origin: string;
  readonly port: number;
  /** TCP connections accepted so far. */
  readonly connections: number;
  url(path: string): string;
  route(path: string, handler: RouteHandler): void;
  /** Serves `document` as JSON at `path`, with extra response headers. */
  serveJson(path: string, document: unknown, headers?: Record<string, string>): void;
  /** Requests received for `path` (as sent: path and query). */
  requests(path: string): number;
  /** The headers of the last request for `path`. */
  lastHeaders(path: string): IncomingMessage['headers'] | undefined;
  close(): Promise<void>;
}

/**
 * A document server on 127.0.0.1: https with the given certificates, plain http without. Unknown paths get 404.
 */
export async function startDocumentServer(certificates?: TestCertificates): Promise<DocumentServer> {
  const routes = new Map<string, RouteHandler>();
  const counts = new Map<string, number>();
  const headers = new Map<string, IncomingMessage['headers']>();
  let connections = 0;
  const handle = (request: IncomingMessage, response: ServerResponse) => {
    const path = request.url ?? '/';
    counts.set(path, (counts.get(path) ?? 0) + 1);
    headers.set(path, request.headers);
    const handler = routes.get(path);
    if (!handler) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    Promise.resolve(handler(request, response)).catch(() => response.destroy());
  };
  const server: Server = certificates
    ? createHttpsServer({ key: certificates.key, cert: certificates.cert }, handle)
    : createHttpServer(handle);
  server.on(certificates ? 'secureConnection' : 'connection', () => {
    connections += 1;
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const origin = `${certificates ? 'https' : 'http'}://localhost:${port}`;
  return {
    origin,
    port,
    get connections() {
      return connections;
    },
    url: (path) => `${origin}${path}`,
    route: (path, handler) => routes.set(path, handler),
    serveJson(path, document, headers = {}) {
      routes.set(path, (_request, response) => {
        const body = JSON.stringify(document);
        response
          .writeHead(200, {
            'content-type': 'application/json',
            'content-length': String(Buffer.byteLength(body)),
            ...headers,
          })
          .end(body);
      });
    },
    requests: (path) => counts.get(path) ?? 0,
    lastHeaders: (path) => headers.get(path),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** What a streaming handler wrote before the peer went away, and when it went away. */
export interface StreamRecord {
  bytesWritten: number;
  startedAt: number;
  closedAt?: number;
}

/**
 * A 200 with a chunked body of `totalBytes`, written 1 KiB at a time with back-pressure, that stops when the
 * client goes away. `record` tells how much was written by then.
 */
export function chunkedBody(totalBytes: number, record: StreamRecord): RouteHandler {
  return async (_request, response) => {
    record.startedAt = Date.now();
    response.on('close', () => {
      record.closedAt = Date.now();
    });
    response.writeHead(200, { 'content-type': 'application/json' });
    const chunk = Buffer.alloc(1024, 0x20);
    while (record.bytesWritten < totalBytes && !response.destroyed) {
      record.bytesWritten += chunk.length;
      if (!response.write(chunk)) {
        await new Promise((resolve) => {
          response.once('drain', resolve);
          response.once('close', resolve);
        });
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (!response.destroyed) response.end();
  };
}

/** A 200 whose body arrives one byte per second, until the client goes away. */
export function tricklingBody(record: StreamRecord): RouteHandler {
  return (_request, response) => {
    record.startedAt = Date.now();
    response.writeHead(200, { 'content-type': 'application/json' });
    response.write('{');
    record.bytesWritten = 1;
    const timer = setInterval(() => {
      response.write(' ');
      record.bytesWritten += 1;
    }, 1000);
    response.on('close', () => {
      clearInterval(timer);
      record.closedAt = Date.now();
    });
  };
}
