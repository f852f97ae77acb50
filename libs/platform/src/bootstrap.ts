import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { DynamicModule } from '@nestjs/common';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { Logger, PinoLogger } from 'nestjs-pino';
import { ConfigError, type EnvSource } from './config.js';
import { requestIdFor } from './logging.js';
import { httpRequestDuration, METRICS_REGISTRY } from './metrics/metrics.js';
import { registerRequestLogging } from './request-logging.js';
import type { Registry } from 'prom-client';

/** Overrides the harness passes to an app module (a database of its own instead of the configured one). */
export interface AppOverrides {
  database?: import('@portcullis/persistence').DatabaseTarget;
  /** Where log lines go instead of standard output, for a test that reads them. */
  logDestination?: import('pino').DestinationStream;
}

/** An app configured from its environment: the root module and where it listens. */
export interface ConfiguredApp {
  module: DynamicModule;
  host: string;
  port: number;
  shutdownTimeoutMs: number;
  /** `TRUST_PROXY`: the reverse proxies whose `X-Forwarded-*` headers are believed; none when absent. */
  trustProxy?: readonly string[];
}

/** What an app's root module exposes so that `main.ts` and the test harness boot it the same way. */
export interface PortcullisAppModule {
  /**
   * Parses the environment, loads the extension modules it names, and returns the configured root module; rejects
   * with {@link ConfigError} naming the variable.
   */
  configure(env: EnvSource, overrides?: AppOverrides): Promise<ConfiguredApp>;
}

export interface RunningApp {
  app: NestFastifyApplication;
  /** `http://host:port` the app listens on. */
  url: string;
  /**
   * Stops accepting connections, waits up to `drainMs` (default 5,000) for every request in progress to have its
   * answer under way, then closes the app (its shutdown hooks, then the database).
   */
  close(drainMs?: number): Promise<void>;
}

/** Largest request body any endpoint accepts; OAuth and MCP requests are far smaller. */
const BODY_LIMIT = 64 * 1024;

/**
 * Creates the Nest app on Fastify, wires pino as its logger, and listens. Fastify's own logger stays off;
 * request ids come from the same generator nestjs-pino uses.
 */
export async function listen(
  module: DynamicModule,
  options: { host: string; port: number; trustProxy?: readonly string[] | undefined },
): Promise<RunningApp> {
  const adapter = new FastifyAdapter({
    bodyLimit: BODY_LIMIT,
    // Only the reverse proxies named in TRUST_PROXY may say who the client is (`X-Forwarded-For`): anyone else could
    // pick their own address, and with it a fresh rate-limit budget.
    trustProxy: options.trustProxy && options.trustProxy.length > 0 ? [...options.trustProxy] : false,
    forceCloseConnections: 'idle',
    // A request that reaches an open connection while the app drains is served (its answer closes the connection),
    // not refused with a 503: it was sent before the client could know.
    return503OnClosing: false,
    // Fastify's request id is the one pino-http logs; it follows the caller's X-Request-Id when that is sane.
    genReqId: (req: IncomingMessage) => requestIdFor(req.headers['x-request-id']),
    // The router refuses a malformed URL (400) or an over-long path parameter (414) before any hook or route
    // runs, and would answer through Fastify's default error handler in Fastify's own shape. These go to the
    // error handler Nest installs instead, and so to the app's one exception filter, like every other refusal.
    // (This replaces the adapter's own option, which does the same after Nest's security hook; no app enables it.)
    frameworkErrors: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
      const fastify = adapter.getInstance();
      reply.header('x-request-id', request.id);
      fastify.errorHandler.call(fastify, error, request, reply);
    },
  });
  const app = await NestFactory.create<NestFastifyApplication>(module, adapter, {
    bufferLogs: true,
    // OAuth endpoints read the form body as sent: a repeated parameter must be seen, not merged (RFC 6749 3.1).
    rawBody: true,
    abortOnError: false,
    // Until pino takes over, Nest would print startup failures with stacks; runMain reports them in one line.
    logger: false,
  });
  app.useLogger(app.get(Logger));
  let closing = false;
  // For the drain: each connection, whether it has carried a request yet and how many answers it has in progress; and
  // the answers in progress (a request is done with once its answer has started: a streamed answer, an MCP event
  // stream, is then the app's to end in its shutdown hooks).
  const connections = new Map<Socket, { served: boolean; active: number }>();
  const inProgress = new Set<ServerResponse>();
  const fastify = app.getHttpAdapter().getInstance();
  // First of the app's own hooks, where the request-logging middleware ran before: the hooks and handlers after it
  // log within the request's context. (The hooks here take `done` rather than return a promise: one promise less per
  // hook and request.)
  registerRequestLogging(fastify, await app.resolve(PinoLogger));
  const registry = metricsRegistryOf(app);
  const requests = registry ? httpRequestDuration(registry) : undefined;
  if (requests) {
    fastify.addHook('onResponse', (request, reply, done) => {
      requests.observe(
        {
          method: request.method,
          // The route's template (`/register/:client_id`), never the path: one series per route, whatever is asked.
          route: request.routeOptions.url ?? 'unmatched',
          status_code: String(reply.statusCode),
        },
        reply.elapsedTime / 1000,
      );
      done();
    });
  }
  fastify.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    const connection = connections.get(request.raw.socket);
    if (connection) {
      connection.served = true;
      connection.active += 1;
    }
    inProgress.add(reply.raw);
    reply.raw.once('close', () => {
      inProgress.delete(reply.raw);
      if (connection) connection.active -= 1;
    });
    done();
  });
  // While draining, every answer ends its connection (RFC 9112 9.6), so a keep-alive client opens its next one
  // elsewhere instead of holding this process open.
  fastify.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });
  await app.listen(options.port, options.host);
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  const shown = host === '0.0.0.0' || host === '[::]' ? 'localhost' : host;
  const server = app.getHttpServer() as Server;
  server.on('connection', (socket: Socket) => {
    connections.set(socket, { served: false, active: 0 });
    socket.once('close', () => connections.delete(socket));
  });
  return {
    app,
    url: `http://${shown}:${port}`,
    close: async (drainMs = 5_000) => {
      // Stop listening (new connections are refused) and let requests in flight finish before any shutdown hook
      // runs (Nest runs them before it stops the HTTP server: a strategy or a client unregistered under a request
      // in progress would fail it). Only the listener is closed here, not the connections Node counts as idle: a
      // connection accepted a moment ago whose request has not been read yet looks idle too, and is served. A
      // keep-alive connection idle after its answers is closed at once, rather than when its keep-alive would have
      // timed out.
      closing = true;
      NetServer.prototype.close.call(server);
      const sweep = setInterval(() => {
        for (const [socket, { served, active }] of connections) if (served && active === 0) socket.destroy();
      }, 25);
      try {
        const deadline = Date.now() + drainMs;
        const draining = () =>
          [...inProgress].some((response) => !response.headersSent) ||
          [...connections.values()].some(({ served }) => !served);
        while (draining() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
        await app.close();
      } finally {
        clearInterval(sweep);
      }
    },
  };
}

/** The app's metrics registry, when its root module imports the platform's (every app configured by configureApp). */
function metricsRegistryOf(app: NestFastifyApplication): Registry | undefined {
  try {
    return app.get<Registry>(METRICS_REGISTRY, { strict: false });
  } catch {
    return undefined;
  }
}

export interface MainOptions {
  name: string;
  module: PortcullisAppModule;
  env: EnvSource;
}

/**
 * The body of every app's `main.ts`: boot, log the URL, and on SIGTERM or SIGINT stop accepting
 * connections, let in-flight requests finish, close the database and exit 0 (1 if that takes longer than
 * the shutdown timeout). A configuration or startup error prints one line and exits 1, no stack trace.
 */
export async function runMain(options: MainOptions): Promise<void> {
  let running: RunningApp;
  let timeoutMs: number;
  try {
    const configured = await options.module.configure(options.env);
    timeoutMs = configured.shutdownTimeoutMs;
    running = await listen(configured.module, configured);
  } catch (error) {
    process.stderr.write(`${options.name}: ${describeStartupError(error)}\n`);
    process.exit(1);
  }
  const logger = running.app.get(Logger);
  logger.log(`${options.name} listening on ${running.url}`, 'Bootstrap');

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.log(`${signal} received: draining requests and shutting down`, 'Bootstrap');
    const timer = setTimeout(() => {
      process.stderr.write(`${options.name}: shutdown took longer than ${timeoutMs} ms; exiting\n`);
      process.exit(1);
    }, timeoutMs);
    timer.unref();
    // The drain gets the shutdown timeout but for the time the hooks and the database need to close.
    running.close(Math.max(0, timeoutMs - 2_000)).then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`${options.name}: error during shutdown: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  // `on`, not `once`: a second signal (a supervisor forwarding the Ctrl-C the process already got) must not
  // fall through to Node's default handler and kill the drain half-way.
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

/** One line a person can act on; the cause's stack is never shown for expected startup failures. */
export function describeStartupError(error: unknown): string {
  if (error instanceof ConfigError) return error.message;
  if (error instanceof Error) {
    switch (error.name) {
      case 'DatabaseConnectionError':
        return `DATABASE_URL: ${error.message}`;
      case 'EmbeddedDatabaseBusyError':
        return `PGLITE_DIR: ${error.message}`;
      case 'MigrationError':
        return `database migration: ${error.message}`;
    }
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') return `PORT: ${error.message}`;
    return `failed to start: ${error.message}`;
  }
  return `failed to start: ${String(error)}`;
}
