// Rules kept here: the Fetch standard's CORS protocol (https://fetch.spec.whatwg.org/#http-cors-protocol) for the
// resource's routes, as the core decides it (`http/browser-cors.ts`): the resource URI's path and the paths under
// it (RFC 9728 Section 1.2: the resource is identified by that URI), but not its metadata document (public, `*`,
// answered by its own controller). The host app's other routes (its health, metrics or admin pages) are not the
// resource's to open to browsers: the hook leaves them as they are, their preflights included. A resource whose
// path is `/` covers every route. Before routing, so the grant covers every answer, errors included, and the
// preflight, which no route takes, is answered here. The Origin check of the MCP endpoint is the app's (the
// Portcullis protected server refuses a disallowed Origin on `/mcp` only).
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ResourceServerConfig } from '../config/resource-server.config.js';
import { browserAccess } from '../http/browser-cors.js';
import { RESOURCE_SERVER_CONFIG } from './resource-server.constants.js';

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
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
    // Before routing, so it also runs for the preflight, which no route takes, and for refusals. A callback, not a
    // promise: this runs on every request of the app.
    const base = new URL(this.config.resource).pathname;
    const within = (path: string) => base === '/' || path === base || path.startsWith(`${base}/`);
    fastify.addHook('onRequest', (request, reply, done) => {
      if (this.apply(request, reply, within) === undefined) done();
    });
  }

  /**
   * Grants and answers for a request within the resource (`within`: its URI's path, or under it: `/mcp`, `/mcp/x`;
   * not `/mcpx`); the reply when the hook answered it (a preflight).
   */
  private apply(
    request: FastifyRequest,
    reply: FastifyReply,
    within: (path: string) => boolean,
  ): FastifyReply | undefined {
    const query = request.url.indexOf('?');
    const path = query === -1 ? request.url : request.url.slice(0, query);
    if (path === this.config.metadataPath || !within(path)) return undefined;
    const access = browserAccess(
      this.config.browserOrigins,
      {
        method: request.method,
        origin: headerValue(request.headers.origin),
        accessControlRequestMethod: headerValue(request.headers['access-control-request-method']),
        accessControlRequestHeaders: headerValue(request.headers['access-control-request-headers']),
      },
      { checkOrigin: false },
    );
    if (access === undefined) return undefined;
    reply.headers(access.headers);
    return access.answer ? reply.code(access.answer.status).send() : undefined;
  }
}
