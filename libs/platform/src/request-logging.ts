import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { PinoLogger } from 'nestjs-pino';
import type { Logger } from 'pino';
import { completionLevel, isProbe } from './logging.js';

/**
 * The request log as Fastify hooks rather than as Nest middleware: every request runs in a logging context whose
 * logger is bound to it (`req`: id, method, URL, client address, by the serializers of {@link loggerParams}), so every
 * line logged while it is served carries them; and its completion line (`res`, `responseTime`) is written once its
 * answer has been sent or the connection closed, except for probes and scrapes ({@link isProbe}). The lines are the
 * ones pino-http's middleware wrote (same fields, messages and levels); mounting that middleware through Nest cost
 * every request the middleware engine's path matching and its extra closures.
 *
 * `context` is any `PinoLogger` of the app: its logging context is the one every `PinoLogger` and the Nest `Logger`
 * read.
 */
export function registerRequestLogging(fastify: FastifyInstance, context: PinoLogger): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    const req = request.raw as IncomingMessage & { id?: string };
    const res = reply.raw;
    // The id Fastify gave the request (its X-Request-Id when sane), as the `req` serializer reads it.
    req.id = request.id;
    const started = Date.now();
    context.runInContext(
      () => {
        // The logger of this request's context: the root logger with the request bound.
        watchCompletion(context.logger, req, res, started, !isProbe(req));
        done();
      },
      { bindings: { req } },
    );
  });
}

/** Writes the completion line of `res` with `log` when it ends (or fails, even for a probe), as pino-http does. */
function watchCompletion(
  log: Logger,
  req: IncomingMessage,
  res: ServerResponse,
  started: number,
  logSuccess: boolean,
): void {
  const complete = (error?: Error) => {
    res.removeListener('close', complete);
    res.removeListener('finish', complete);
    res.removeListener('error', complete);
    const responseTime = Date.now() - started;
    const level = completionLevel(res.statusCode, error);
    if (error || res.statusCode >= 500) {
      const err = error ?? new Error(`failed with status code ${res.statusCode}`);
      log[level]({ res, err, responseTime }, 'request errored');
      return;
    }
    log[level](
      { res, responseTime },
      !req.readableAborted && res.writableEnded ? 'request completed' : 'request aborted',
    );
  };
  if (logSuccess) {
    res.on('close', complete);
    res.on('finish', complete);
  }
  res.on('error', complete);
}
