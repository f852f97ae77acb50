/**
 * The kept `tools/list` answers (list-answers.ts) given from a `preHandler` hook of `POST /mcp`, after the route's
 * bearer authentication and before Nest's router: a kept answer needs none of what the router does for the route's
 * handler (its parameters, the reply handed over to the SDK), and on a request this cheap that was a sizeable share.
 *
 * Fail closed: the hook answers only a request the authentication has passed (its `AuthInfo` is on the request),
 * so were it ever to run before the authentication it would answer nothing; any request it does not answer goes on
 * to the route's handler unchanged.
 */
import { Inject, Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { appendRoutePreHandlers, type RoutePreHandler } from '@portcullis/platform';
import { type AuthInfo, type ResourceServerConfig } from '@portcullis/resource-server';
import { authInfoOf, RESOURCE_SERVER_CONFIG } from '@portcullis/resource-server/nest';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { handOverResponse } from './hand-over.js';
import { McpEndpoint } from './mcp-endpoint.service.js';
import { MCP_ROUTE } from './mcp-transport-security.hook.js';

@Injectable()
export class McpKeptAnswersHook {
  // What the SDK's view of the token (`toMcpAuthInfo`) gives the shape: the resource as a URL.
  readonly #resource: URL;
  #attaching = false;
  #answered = 0;

  constructor(
    @Inject(HttpAdapterHost) private readonly adapterHost: HttpAdapterHost,
    @Inject(McpEndpoint) private readonly endpoint: McpEndpoint,
    @Inject(RESOURCE_SERVER_CONFIG) config: ResourceServerConfig,
  ) {
    this.#resource = new URL(config.resource);
  }

  /** Answers given by the hook so far (tests and benchmarks). */
  get answered(): number {
    return this.#answered;
  }

  /**
   * Appends the hook to `POST /mcp` when Fastify registers it. Called from the module's `configure()`, after the
   * resource server's own (`ResourceServerModule` is imported before `McpModule`), so it comes after the
   * authentication.
   */
  attach(): void {
    if (this.#attaching) return;
    const hook: RoutePreHandler = (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
      if (!this.#answer(request, reply)) done();
    };
    this.#attaching = appendRoutePreHandlers(this.adapterHost, (route) =>
      route.url === MCP_ROUTE && [route.method].flat().includes('POST') ? [hook] : undefined,
    );
  }

  #answer(request: FastifyRequest, reply: FastifyReply): boolean {
    let auth: AuthInfo;
    try {
      auth = authInfoOf(request);
    } catch {
      return false;
    }
    const answer = this.endpoint.keptAnswer(request.method, request.headers, request.body, {
      scopes: auth.scopes,
      resource: this.#resource,
    });
    if (answer === undefined) return false;
    // Written to the raw response with the headers the app's hooks set, as the SDK's answer would be.
    answer(handOverResponse(reply));
    this.#answered += 1;
    return true;
  }
}
