// Rules kept here: the Fetch standard's CORS protocol (https://fetch.spec.whatwg.org/#http-cors-protocol) for every
// route of the resource but its metadata document (public, `*`, answered by its own controller):
// - only an allowed origin (`BrowserOrigins`, the list the MCP endpoint's Origin check reads too) is granted
//   `Access-Control-Allow-Origin`, echoed with `Vary: Origin`; a disallowed one gets no CORS header at all;
// - the grant is made before routing, so it covers every answer, errors included: the 401 and 403 challenges
//   (RFC 6750 Section 3) are readable, since `WWW-Authenticate` is exposed, as are the MCP headers (MCP Streamable
//   HTTP "Session Management", "Protocol Version Header") and `DPoP-Nonce` (RFC 9449 Sections 8 and 9);
// - a preflight (`OPTIONS` with `Access-Control-Request-Method`) from an allowed origin is answered 204 with the
//   methods and request headers an MCP client sends (`Authorization` must be listed by name, a `*` never covers
//   it); from any other origin 403, without CORS headers, before any authentication;
// - no `Access-Control-Allow-Credentials`: tokens travel in `Authorization`, never in cookies.
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ResourceServerConfig } from '../config/resource-server.config.js';
import { RESOURCE_SERVER_CONFIG } from '../resource-server.constants.js';

/**
 * Response headers a browser client needs to read: the challenge, the MCP session and protocol version, the DPoP
 * nonce.
 *
 * @see {@link https://fetch.spec.whatwg.org/#http-access-control-expose-headers Fetch, Access-Control-Expose-Headers}
 */
export const CORS_EXPOSED_HEADERS = 'WWW-Authenticate, Mcp-Session-Id, MCP-Protocol-Version, DPoP-Nonce';

/**
 * Request headers an MCP client sends over Streamable HTTP: the token and its DPoP proof, the session and protocol
 * version, `Last-Event-ID` to resume a stream, and the 2026-07-28 `Mcp-Method` and `Mcp-Name`. A tool's
 * `Mcp-Param-{Name}` headers are allowed as the preflight names them.
 *
 * @see {@link https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http MCP Streamable HTTP}
 */
export const CORS_ALLOWED_REQUEST_HEADERS = [
  'Authorization',
  'DPoP',
  'Mcp-Session-Id',
  'MCP-Protocol-Version',
  'Last-Event-ID',
  'Content-Type',
  'Accept',
  'Mcp-Method',
  'Mcp-Name',
] as const;

const ALLOWED_METHODS = 'GET, POST, DELETE';
// RFC 9110 Section 5.1 field names; only `Mcp-Param-` ones are taken from a preflight's request.
const PARAM_HEADER = /^mcp-param-[!#$%&'*+.^_`|~0-9a-z-]+$/;

/** The `Mcp-Param-*` names a preflight asks for (lowercase, as browsers send them), echoed back. */
function requestedParamHeaders(request: FastifyRequest): string[] {
  const requested = request.headers['access-control-request-headers'];
  if (typeof requested !== 'string') return [];
  return requested
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => PARAM_HEADER.test(name));
}

/**
 * Grants the configured browser origins CORS on the resource's routes and answers their preflights.
 *
 * @see {@link https://fetch.spec.whatwg.org/#http-cors-protocol Fetch, CORS protocol}
 */
@Injectable()
export class BrowserCorsHook implements OnModuleInit {
  constructor(
    @Inject(HttpAdapterHost) private readonly adapterHost: HttpAdapterHost,
    @Inject(RESOURCE_SERVER_CONFIG) private readonly config: ResourceServerConfig,
  ) {}

  onModuleInit(): void {
    // Absent in a Nest application context without HTTP (a command line that imports the module).
    const fastify = this.adapterHost.httpAdapter?.getInstance<FastifyInstance>();
    if (fastify === undefined) return;
    // Before routing, so it also runs for the preflight, which no route takes, and for refusals.
    fastify.addHook('onRequest', async (request, reply) => this.apply(request, reply));
  }

  private apply(request: FastifyRequest, reply: FastifyReply): FastifyReply | undefined {
    const origin = request.headers.origin;
    if (origin === undefined) return undefined;
    if (request.url.split('?')[0] === this.config.metadataPath) return undefined;
    const preflight =
      request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined;
    reply.header('vary', 'Origin');
    if (!this.config.browserOrigins.allows(origin)) {
      return preflight ? reply.code(403).header('cache-control', 'no-store').send() : undefined;
    }
    reply.header('access-control-allow-origin', origin);
    reply.header('access-control-expose-headers', CORS_EXPOSED_HEADERS);
    if (!preflight) return undefined;
    reply.header('access-control-allow-methods', ALLOWED_METHODS);
    reply.header(
      'access-control-allow-headers',
      [...CORS_ALLOWED_REQUEST_HEADERS, ...requestedParamHeaders(request)].join(', '),
    );
    reply.header('access-control-max-age', '600');
    return reply.code(204).send();
  }
}
