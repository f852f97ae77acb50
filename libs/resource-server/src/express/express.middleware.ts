/**
 * The Express adapter: middleware over a `ResourceServer` (`createResourceServer`). It reads the request as Express
 * received it (its parsed query and body, Node's raw header list) and writes the core's answers; every rule is the
 * core's.
 *
 * Rules kept here:
 * - RFC 6750 Sections 2 and 3, RFC 9449 Section 7: `requireBearer` authenticates with the core's
 *   `RequestAuthenticator` (a token in the query or body refused, one `Authorization` field counted in the raw
 *   header list, DPoP when composed) and answers a refusal with the core's challenge and body.
 * - The accepted request carries the MCP SDK's view of the token as `req.auth`, which `toNodeHandler` of
 *   `@modelcontextprotocol/node` hands to `createMcpHandler` as `authInfo`; its `token` is always empty (MCP "Access
 *   Token Privilege Restriction").
 * - Fetch CORS protocol, MCP Streamable HTTP "Security Warning": preflights answered and a disallowed `Origin`
 *   refused before authentication, as `protect` does (`http/browser-cors.ts`).
 * - RFC 9728 Section 3.1, MCP 2025-11-25 "Protected Resource Metadata Discovery Requirements": `metadataRouter`
 *   serves the document at the path-inserted and the root well-known paths, and passes every other request on.
 */
import type { AuthInfo as McpAuthInfo } from '@modelcontextprotocol/server';
import { HttpRefusalError } from '@portcullis/protocol';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { BearerRequest } from '../auth/bearer-request.js';
import { browserAccess } from '../http/browser-cors.js';
import { toMcpAuthInfo } from '../mcp/mcp-auth-info.js';
import {
  METADATA_PREFLIGHT_HEADERS,
  METADATA_RESPONSE_HEADERS,
} from '../metadata/protected-resource-metadata.js';
import { checkedScopeOption, type ResourceServer } from '../resource-server.js';

/** How {@link requireBearer} guards the routes it is mounted on. */
export interface RequireBearerOptions {
  /**
   * Every scope the operation needs, or a function deciding them per request (the body is parsed when a body parser
   * ran first); `[]` (default) means any valid token.
   */
  readonly scopes?:
    readonly string[] | ((request: Request) => readonly string[] | Promise<readonly string[]>);
  /** CORS for `browserOrigins` and the Origin check; default `true`, `false` leaves both to the app. */
  readonly cors?: boolean;
}

/** An Express request `requireBearer` accepted: `auth` is what `toNodeHandler` passes to the MCP handler. */
export type AuthenticatedRequest = Request & { auth?: McpAuthInfo };

function send(
  res: Response,
  status: number,
  headers: Readonly<Record<string, string>>,
  body?: unknown,
): void {
  for (const [name, value] of Object.entries(headers)) {
    if (name === 'vary') res.vary(value);
    else res.setHeader(name, value);
  }
  res.status(status);
  if (body === undefined) res.end();
  else res.json(body);
}

function bearerRequestOf(req: Request): BearerRequest {
  return {
    method: req.method,
    url: req.originalUrl,
    headers: req.headers,
    query: req.query,
    body: req.body as unknown,
    raw: { rawHeaders: req.rawHeaders },
  };
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * Requires a valid access token for the resource on the routes it is mounted on.
 *
 * @example
 * ```ts
 * const serve = toNodeHandler(mcp);
 * app.post('/mcp', express.json(), requireBearer(resourceServer, { scopes: ['notes:read'] }), (req, res) =>
 *   serve(req, res, req.body),
 * );
 * ```
 *
 * @throws TypeError when a listed scope is not a scope-token.
 * @see {@link https://www.rfc-editor.org/rfc/rfc6750 RFC 6750}
 */
export function requireBearer(
  resourceServer: ResourceServer,
  options: RequireBearerOptions = {},
): RequestHandler {
  const scopes = checkedScopeOption(options.scopes);
  const cors = options.cors !== false;
  return (req: Request, res: Response, next: NextFunction): void => {
    const access = cors
      ? browserAccess(
          resourceServer.config.browserOrigins,
          {
            method: req.method,
            origin: header(req.headers.origin),
            accessControlRequestMethod: header(req.headers['access-control-request-method']),
            accessControlRequestHeaders: header(req.headers['access-control-request-headers']),
          },
          { checkOrigin: true },
        )
      : undefined;
    if (access?.answer) {
      send(res, access.answer.status, access.headers, access.answer.body);
      return;
    }
    const corsHeaders = access?.headers ?? {};
    resourceServer
      .authenticate(bearerRequestOf(req), () => (typeof scopes === 'function' ? scopes(req) : (scopes ?? [])))
      .then(
        (auth) => {
          for (const [name, value] of Object.entries(corsHeaders)) {
            if (name === 'vary') res.vary(value);
            else res.setHeader(name, value);
          }
          (req as AuthenticatedRequest).auth = toMcpAuthInfo(auth, resourceServer.config);
          next();
        },
        (error: unknown) => {
          const refusal = resourceServer.refusal(error);
          send(res, refusal.status, { ...corsHeaders, ...refusal.headers }, refusal.body);
        },
      )
      .catch(next);
  };
}

/**
 * Serves the resource's metadata document at its well-known paths (`GET`, `HEAD`, preflights); any other request is
 * passed on.
 *
 * @example
 * ```ts
 * app.use(metadataRouter(resourceServer));
 * ```
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc9728#section-3.1 RFC 9728 Section 3.1}
 */
export function metadataRouter(resourceServer: ResourceServer): RequestHandler {
  return (req: Request, res: Response, next: NextFunction): void => {
    // The request target's path as sent, never parsed as a URL against a base (`//a:b@/x` would not parse).
    const pathname = req.originalUrl.split(/[?#]/, 1)[0] ?? '';
    if (!resourceServer.metadataPaths.includes(pathname)) {
      next();
      return;
    }
    if (req.method === 'OPTIONS') return send(res, 204, METADATA_PREFLIGHT_HEADERS);
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return send(
        res,
        405,
        { 'cache-control': 'no-store', allow: 'GET, HEAD, OPTIONS' },
        new HttpRefusalError('method_not_allowed').toResponseBody(),
      );
    }
    send(res, 200, METADATA_RESPONSE_HEADERS, resourceServer.metadataDocument());
  };
}
