import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { RequestMethod } from '@nestjs/common';
import type { Params } from 'nestjs-pino';
import type { DestinationStream, Level } from 'pino';
import type { Options as PinoHttpOptions } from 'pino-http';

/** Query parameters whose values are credentials or one-time secrets; their values never reach a log. */
const SECRET_QUERY_PARAMS = new Set([
  'code',
  'code_verifier',
  'client_secret',
  'access_token',
  'refresh_token',
  'id_token',
  'token',
  'password',
  'client_assertion',
  'assertion',
  'subject_token',
]);

/** Paths pino censors in any logged object: headers, form fields and token responses. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["proxy-authorization"]',
  'res.headers["set-cookie"]',
  ...[...SECRET_QUERY_PARAMS].flatMap((name) => [name, `*.${name}`]),
];

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Replaces the values of secret query parameters with `[redacted]`, leaving the rest of the URL readable. */
export function redactUrl(url: string | undefined): string | undefined {
  if (!url) return url;
  const queryStart = url.indexOf('?');
  if (queryStart === -1) return url;
  const query = url
    .slice(queryStart + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const rawName = eq === -1 ? pair : pair.slice(0, eq);
      let name = rawName;
      try {
        name = decodeURIComponent(rawName.replace(/\+/g, ' '));
      } catch {
        // A malformed escape is logged as sent; it cannot be one of the secret names.
      }
      return SECRET_QUERY_PARAMS.has(name) && eq !== -1 ? `${rawName}=[redacted]` : pair;
    })
    .join('&');
  return `${url.slice(0, queryStart)}?${query}`;
}

/**
 * The request id: the caller's `X-Request-Id` when it is a plain token (so ids follow a request across the
 * stack), else a new UUID. Responses echo it in `X-Request-Id`.
 */
export function requestIdFor(incoming: string | string[] | undefined): string {
  return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

export interface LoggingOptions {
  appName: string;
  level: Level | 'silent';
  /** Where log lines go (default standard output); tests pass a stream to read them. */
  destination?: DestinationStream;
  /** Human-readable lines instead of JSON (development on a terminal). */
  pretty?: boolean;
}

/** nestjs-pino parameters: one JSON line per request with its id, secrets censored by construction. */
export function loggerParams(options: LoggingOptions): Params {
  const http: PinoHttpOptions = {
    name: options.appName,
    level: options.level,
    // Fastify assigned the id already (see bootstrap); this covers a request that reaches pino-http first.
    genReqId: (req) =>
      (req as IncomingMessage & { id?: string }).id ?? requestIdFor(req.headers['x-request-id']),
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    serializers: {
      req: (req: { id: string; method: string; url: string; remoteAddress?: string }) => ({
        id: req.id,
        method: req.method,
        url: redactUrl(req.url),
        remoteAddress: req.remoteAddress,
      }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
    customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? 'error' : 'info'),
    // Probes every few seconds would drown the log.
    autoLogging: { ignore: (req) => req.url === '/healthz' || req.url === '/readyz' },
    ...(options.pretty && !options.destination
      ? { transport: { target: 'pino-pretty', options: { singleLine: true, translateTime: 'HH:MM:ss' } } }
      : {}),
  };
  return {
    pinoHttp: options.destination ? [http, options.destination] : http,
    // nestjs-pino's default route pattern (`{/*splat}`) matches nothing on Nest 12's Fastify adapter.
    forRoutes: [{ path: '{*path}', method: RequestMethod.ALL }],
  };
}
