// Rules kept here: MCP Streamable HTTP, "Security Warning" (DNS rebinding): the MCP endpoint checks the `Host`
// header against the resource's host (plus the loopback names when the resource itself is on loopback) and a present
// `Origin` against the resource's browser origins (its own and `CORS_ORIGINS`, the list the CORS grants read too);
// either refused is answered 403 with a JSON-RPC error.
// The check runs as a Fastify `onRequest` hook, before the bearer guard: a refused request consumes nothing
// single-use (a DPoP proof's `jti`, RFC 9449 Section 11.1) and learns nothing about its token.
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { localhostAllowedHostnames, validateHostHeader } from '@modelcontextprotocol/server';
import { isLoopbackHostname } from '@portcullis/metadata';
import { type BrowserOrigins, type ResourceServerConfig } from '@portcullis/resource-server';
import { RESOURCE_SERVER_CONFIG } from '@portcullis/resource-server/nest';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** The route of the MCP endpoint (`McpController`). */
export const MCP_ROUTE = '/mcp';

function allowedHostnames(resource: string): string[] {
  const { hostname } = new URL(resource);
  return isLoopbackHostname(hostname) ? [...new Set([hostname, ...localhostAllowedHostnames()])] : [hostname];
}

/**
 * Refuses MCP requests whose `Host` or `Origin` the endpoint does not serve, before anything authenticates them.
 *
 * @see {@link https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#security-warning MCP Streamable HTTP, Security Warning}
 */
@Injectable()
export class McpTransportSecurityHook implements OnModuleInit {
  readonly #hostnames: readonly string[];
  readonly #origins: BrowserOrigins;

  constructor(
    @Inject(HttpAdapterHost) private readonly adapterHost: HttpAdapterHost,
    @Inject(RESOURCE_SERVER_CONFIG) config: ResourceServerConfig,
  ) {
    this.#hostnames = allowedHostnames(config.resource);
    this.#origins = config.browserOrigins;
  }

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter?.getInstance<FastifyInstance>();
    if (fastify === undefined) return;
    fastify.addHook('onRequest', async (request, reply) => this.apply(request, reply));
  }

  /** The reason a request to the MCP endpoint is refused, or undefined. */
  refusal(host: string | undefined, origin: string | undefined): string | undefined {
    const hostCheck = validateHostHeader(host ?? null, [...this.#hostnames]);
    if (!hostCheck.ok) return hostCheck.message;
    // A request without Origin is not from a browser page; an empty Origin is not a browser's and is refused.
    if (origin !== undefined && !this.#origins.allows(origin)) {
      return 'Forbidden: this Origin may not call the MCP endpoint';
    }
    return undefined;
  }

  private apply(request: FastifyRequest, reply: FastifyReply): FastifyReply | undefined {
    if (request.routeOptions.url !== MCP_ROUTE) return undefined;
    // A preflight is the CORS hook's to answer; it carries no credentials and reaches no handler.
    if (request.method === 'OPTIONS') return undefined;
    const message = this.refusal(request.headers.host, request.headers.origin);
    if (message === undefined) return undefined;
    return reply
      .code(403)
      .header('cache-control', 'no-store')
      .send({ jsonrpc: '2.0', error: { code: -32000, message }, id: null });
  }
}
