import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Params } from 'nestjs-pino';
import type { DestinationStream, Level } from 'pino';
import type { Options as PinoHttpOptions } from 'pino-http';

/** The text that stands in for a censored value. */
export const REDACTION_MARKER = '[redacted]';

/**
 * Names whose values are credentials or one-time secrets, lower case: query and form parameters (RFC 6749 Sections
 * 2.3.1, 4.1.2, 4.1.3 and 6, RFC 6750 Section 2.3, RFC 7636 Section 4.5, RFC 7521 Section 4.2, RFC 7009 Section 2.1,
 * RFC 8693 Section 2.1, OpenID Connect Core Section 3.1.3.3) and request or response headers (RFC 9110
 * Section 11.6.2, RFC 9449 Section 4.1, RFC 6265). Names are compared case-insensitively: a parameter spelled
 * `Access_Token` is not the RFC's `access_token`, but its value is the same secret.
 */
const SECRET_NAMES = new Set([
  'access_token',
  'refresh_token',
  'id_token',
  'code',
  'code_verifier',
  'client_secret',
  'client_assertion',
  'assertion',
  'subject_token',
  'actor_token',
  // The proxy's one-time connect links (`/connections/<name>/connect?ticket=`).
  'ticket',
  'token',
  'password',
  'authorization',
  'proxy-authorization',
  'dpop',
  'cookie',
  'set-cookie',
]);

/** Whether a parameter, header or property of this name carries a secret, in any letter case. */
export function isSecretName(name: string): boolean {
  return SECRET_NAMES.has(name.toLowerCase());
}

/**
 * Replaces the values of secret query parameters (any letter case, percent-encoded or not) with `[redacted]`,
 * leaving the rest of the URL readable.
 */
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
      return isSecretName(name) && eq !== -1 ? `${rawName}=${REDACTION_MARKER}` : pair;
    })
    .join('&');
  return `${url.slice(0, queryStart)}?${query}`;
}

/** A path or absolute URL with a query: censored as a whole by {@link redactUrl}. */
const URL_WITH_QUERY = /^(?:\/|[a-z][a-z0-9+.-]*:\/\/)[^\s]*\?/i;

/** One `name=value` of a query inside any text (an error message quoting a URL), up to the next separator. */
const EMBEDDED_PARAMETER = /([?&])([^=&\s?#"'<>]+)=([^&\s#"'<>]*)/g;

/**
 * Censors the secret query parameters of URLs quoted inside a text (`upstream refused GET https://…?Code=…`): any
 * `?name=value` or `&name=value` whose name is a secret's, in any letter case, percent-encoded or not.
 */
export function redactEmbeddedQueries(text: string): string {
  return text.replace(EMBEDDED_PARAMETER, (whole, separator: string, rawName: string) => {
    let name = rawName;
    try {
      name = decodeURIComponent(rawName.replace(/\+/g, ' '));
    } catch {
      // A malformed escape is logged as sent; it cannot be one of the secret names.
    }
    return isSecretName(name) ? `${separator}${rawName}=${REDACTION_MARKER}` : whole;
  });
}

/**
 * Whether a line may hold a secret: a secret's name in any case, or a percent-escape (a name spelled `%41ccess_token`).
 * Most lines hold neither and are written as they are.
 */
const MAY_HOLD_SECRET = new RegExp(`${[...SECRET_NAMES].join('|')}|%[0-9a-f]{2}`, 'i');

/**
 * Censors one JSON log line just before it is written: every property named like a secret ({@link isSecretName},
 * any letter case, at any depth: `headers.Authorization`, `body.Client_Secret`) holds `[redacted]`, and every
 * path or URL has its secret query parameters censored ({@link redactUrl}). Working on the finished line, it
 * covers whatever built it: the request, objects passed to a log call, child logger bindings, serialized errors.
 */
export function redactLogLine(line: string): string {
  if (!MAY_HOLD_SECRET.test(line)) return line;
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    // pino writes JSON; anything else is not ours to rewrite.
    return line;
  }
  const redacted = redactJson(parsed);
  return redacted === parsed ? line : `${JSON.stringify(redacted)}${line.endsWith('\n') ? '\n' : ''}`;
}

/** A parsed JSON value with secrets censored; the value itself when nothing needed censoring. */
function redactJson(value: unknown): unknown {
  if (typeof value === 'string') {
    const censored = URL_WITH_QUERY.test(value) ? (redactUrl(value) ?? value) : redactEmbeddedQueries(value);
    return censored === value ? value : censored;
  }
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const items = value.map(redactJson);
    return items.some((item, index) => item !== value[index]) ? items : value;
  }
  let copy: Record<string, unknown> | undefined;
  for (const [key, original] of Object.entries(value)) {
    const censored = isSecretName(key) && original !== null ? REDACTION_MARKER : redactJson(original);
    if (censored === original) continue;
    copy ??= { ...value };
    copy[key] = censored;
  }
  return copy ?? value;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The request id: the caller's `X-Request-Id` when it is a plain token (so ids follow a request across the
 * stack), else a new UUID. Responses echo it in `X-Request-Id`.
 */
export function requestIdFor(incoming: string | string[] | undefined): string {
  return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

/** The paths of health probes and metric scrapes, which are not logged. */
const PROBE_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/** Whether a request is a probe or a scrape, by its path as the client sent it. */
export function isProbe(req: { url?: string; originalUrl?: string }): boolean {
  const url = req.originalUrl ?? req.url ?? '';
  const query = url.indexOf('?');
  return PROBE_PATHS.has(query === -1 ? url : url.slice(0, query));
}

/** The level of a request's completion line: `error` for a failure or a 5xx answer, else `info`. */
export function completionLevel(statusCode: number, error?: unknown): 'error' | 'info' {
  return error || statusCode >= 500 ? 'error' : 'info';
}

export interface LoggingOptions {
  appName: string;
  level: Level | 'silent';
  /** Where log lines go (default standard output); tests pass a stream to read them. */
  destination?: DestinationStream;
  /** Human-readable lines instead of JSON (development on a terminal). */
  pretty?: boolean;
}

/**
 * nestjs-pino parameters: the pino-http logger (its serializers, its level, the censor on every line) that every
 * `PinoLogger` and the Nest `Logger` write through. The request log itself is not mounted as Nest middleware
 * (`forRoutes` is empty): Fastify hooks write it with this logger (`registerRequestLogging`), one JSON line per request
 * with its id, secrets censored by construction.
 */
export function loggerParams(options: LoggingOptions): Params {
  const http: PinoHttpOptions = {
    name: options.appName,
    level: options.level,
    // Fastify assigned the id already (see bootstrap); this covers a request that reaches pino-http first.
    genReqId: (req) =>
      (req as IncomingMessage & { id?: string }).id ?? requestIdFor(req.headers['x-request-id']),
    // One censor on every finished line, whatever produced it (pino's path-based `redact` matches names in one
    // letter case only). Request headers and bodies are not logged in the first place.
    hooks: { streamWrite: redactLogLine },
    serializers: {
      req: (req: { id: string; method: string; url: string; remoteAddress?: string }) => ({
        id: req.id,
        method: req.method,
        url: req.url,
        remoteAddress: req.remoteAddress,
      }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
    customLogLevel: (_req, res, error) => completionLevel(res.statusCode, error),
    // Probes every few seconds would drown the log. A middleware sees the URL as mounted (Nest rewrites `url` for its
    // route match), so the path is read from the original URL, without its query.
    autoLogging: { ignore: (req) => isProbe(req) },
    ...(options.pretty && !options.destination
      ? { transport: { target: 'pino-pretty', options: { singleLine: true, translateTime: 'HH:MM:ss' } } }
      : {}),
  };
  return {
    pinoHttp: options.destination ? [http, options.destination] : http,
    // No Nest middleware: the request log and its context are Fastify hooks (registerRequestLogging).
    forRoutes: [],
  };
}
