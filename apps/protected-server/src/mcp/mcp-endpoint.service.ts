/**
 * The MCP endpoint behind the bearer guard: the official SDK's Streamable HTTP serving, for both protocol eras.
 *
 * - 2026-07-28 (stateless, per-request `_meta` envelope): `createMcpHandler` with `legacy: 'reject'`, a fresh
 *   server instance per request.
 * - 2025 era (session-based): a `WebStandardStreamableHTTPServerTransport` per session, opened by `initialize`
 *   and bound to the token's issuer and subject (see `legacy-sessions.ts`). The SDK's `isLegacyRequest` decides the era, so this
 *   routing can never disagree with the SDK's own classification.
 *
 * Host and Origin headers were checked before the bearer guard (`mcp-transport-security.hook.ts`).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { Inject, Injectable, Logger, type BeforeApplicationShutdown } from '@nestjs/common';
import { toNodeHandler, type NodeMcpRequestHandler } from '@modelcontextprotocol/node';
import {
  createMcpHandler,
  isInitializeRequest,
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport,
  type AuthInfo as McpAuthInfo,
  type McpHandlerRequestOptions,
  type McpHttpHandler,
} from '@modelcontextprotocol/server';
import type { ExtensionSummary } from '@portcullis/extensions';
import { UpstreamTokenExchange, type ResourceServerConfig } from '@portcullis/resource-server';
import { RESOURCE_SERVER_CONFIG } from '@portcullis/resource-server/nest';
import { NotesService } from '../notes/notes.service.js';
import { flushingEventStreams } from './event-stream-response.js';
import { LegacySessionRegistry } from './legacy-sessions.js';
import { ListAnswers, type ShapeAuth } from './list-answers.js';
import { ownerOf } from './mcp-auth-info.js';
import { createNotesMcpServer } from './notes-mcp.server.js';
import { SIGN_IN_CONNECTION, type UpstreamWhoamiOptions } from './upstream-whoami.tool.js';

/** What the app configures of its MCP server. */
export interface McpOptions {
  /** `UPSTREAM_USER_API_URL`: with it, the tool `upstream_whoami`. */
  readonly upstreamUserApiUrl?: string;
  /** `UPSTREAM_CONNECTION`: the connection whose token `upstream_whoami` exchanges for; default `upstream`. */
  readonly upstreamConnection?: string;
}

/** Injection token of the {@link McpOptions}. */
export const MCP_OPTIONS = 'portcullis:mcp-options';

/** Bounds of the 2025-era session registry. */
export const LEGACY_SESSION_LIMITS = Object.freeze({ maxSessions: 1_000, idleTimeoutMs: 30 * 60_000 });

/** Largest MCP request body read, in bytes (the platform's body limit applies first). */
const MAX_BODY_BYTES = 64 * 1024;

function jsonRpcError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: '2.0', error: { code, message }, id: null }, { status });
}

/**
 * Serves MCP over Streamable HTTP for requests the bearer guard already authenticated.
 *
 * @see {@link https://modelcontextprotocol.io/specification/2025-06-18/basic/transports#streamable-http MCP Streamable HTTP}
 */
@Injectable()
export class McpEndpoint implements BeforeApplicationShutdown {
  private readonly logger = new Logger('McpEndpoint');
  readonly #modern: McpHttpHandler;
  readonly #node: NodeMcpRequestHandler;
  readonly #sessions = new LegacySessionRegistry(LEGACY_SESSION_LIMITS);
  /** The composed extensions (`EXTENSIONS`), declared in every server instance's capabilities. */
  readonly #extensions: readonly ExtensionSummary[];
  readonly #upstream: UpstreamWhoamiOptions | undefined;
  /** The SDK's answers to stateless `tools/list`, given again to requests of the same shape (list-answers.ts). */
  readonly #lists = new ListAnswers();
  /** The shape of a `tools/list` request on its way to the SDK, by its parsed body (what `route` is handed). */
  readonly #shapes = new WeakMap<object, { shape: string; id: string | number }>();

  constructor(
    @Inject(NotesService) private readonly notes: NotesService,
    @Inject(RESOURCE_SERVER_CONFIG) config: ResourceServerConfig,
    @Inject(UpstreamTokenExchange) exchange: UpstreamTokenExchange,
    @Inject(MCP_OPTIONS) options: McpOptions,
  ) {
    const onerror = (error: Error) => this.logger.warn(`MCP: ${error.message}`);
    this.#extensions = config.extensions.list();
    this.#upstream = options.upstreamUserApiUrl
      ? {
          exchange,
          userApiUrl: options.upstreamUserApiUrl,
          connection: options.upstreamConnection ?? SIGN_IN_CONNECTION,
        }
      : undefined;
    this.#modern = createMcpHandler(() => this.#server(), {
      legacy: 'reject',
      onerror,
      maxRequestBodySize: MAX_BODY_BYTES,
    });
    this.#node = toNodeHandler(
      { fetch: (request, options) => this.route(request, options) },
      { onerror: (error) => this.logger.error(`MCP request failed: ${error.message}`, error.stack) },
    );
  }

  /** Serves one HTTP request; `request.auth` is the SDK view of the validated token. */
  async handle(
    request: IncomingMessage & { auth?: McpAuthInfo },
    response: ServerResponse,
    body: unknown,
  ): Promise<void> {
    const shape = this.#lists.shapeOf(request.method, request.headers, body, request.auth);
    if (shape !== undefined) {
      const id = (body as { id: string | number }).id;
      if (this.#lists.answer(shape, id, response)) return;
      this.#shapes.set(body as object, { shape, id });
    }
    return this.#node(request, flushingEventStreams(response), body);
  }

  /**
   * The kept answer to an authenticated `tools/list` request of a kept shape (list-answers.ts), as a writer, for the
   * route's hook (mcp-kept-answers.hook.ts) before Nest's router; undefined for any other request, which the route's
   * handler then serves. `auth` is what `request.auth` would carry of the token: its scopes and the resource.
   */
  keptAnswer(
    method: string,
    headers: IncomingHttpHeaders,
    body: unknown,
    auth: ShapeAuth,
  ): ((response: ServerResponse) => void) | undefined {
    const shape = this.#lists.shapeOf(method, headers, body, auth);
    if (shape === undefined || !this.#lists.has(shape)) return undefined;
    const { id } = body as { id: string | number };
    return (response) => {
      this.#lists.answer(shape, id, response);
    };
  }

  /** `tools/list` answers given again without the SDK (tests and benchmarks). */
  get listAnswersGivenAgain(): number {
    return this.#lists.hits;
  }

  #server() {
    return createNotesMcpServer(this.notes, this.#extensions, this.#upstream);
  }

  /** Open 2025-era sessions (for tests and metrics). */
  get legacySessionCount(): number {
    return this.#sessions.size;
  }

  async beforeApplicationShutdown(): Promise<void> {
    // Before the HTTP server closes: open SSE streams would otherwise keep it from closing.
    await this.#sessions.closeAll();
    await this.#modern.close();
  }

  private async route(request: Request, options?: McpHandlerRequestOptions): Promise<Response> {
    const legacy = await isLegacyRequest(request, options?.parsedBody, {
      maxRequestBodySize: MAX_BODY_BYTES,
    });
    if (legacy) return this.legacy(request, options);
    const response = await this.#modern.fetch(request, options);
    const list =
      typeof options?.parsedBody === 'object' && options.parsedBody !== null
        ? this.#shapes.get(options.parsedBody)
        : undefined;
    if (list) await this.#lists.keep(list.shape, list.id, response);
    return response;
  }

  private async legacy(request: Request, options?: McpHandlerRequestOptions): Promise<Response> {
    const owner = ownerOf(options?.authInfo);
    const sessionId = request.headers.get('mcp-session-id');
    if (sessionId !== null) {
      const session = this.#sessions.get(sessionId, owner);
      if (!session) return jsonRpcError(404, -32001, 'Session not found');
      return session.transport.handleRequest(request, options);
    }
    if (request.method !== 'POST' || !isInitializeRequest(options?.parsedBody)) {
      return jsonRpcError(400, -32000, 'Bad Request: Mcp-Session-Id header is required');
    }

    const server = this.#server();
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      maxRequestBodySize: MAX_BODY_BYTES,
      onsessioninitialized: (id) => {
        this.#sessions.add({ id, owner, server, transport, lastSeen: Date.now() });
      },
      onsessionclosed: (id) => this.#sessions.remove(id),
    });
    await server.connect(transport);
    return transport.handleRequest(request, options);
  }
}
