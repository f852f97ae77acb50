/**
 * A protected resource without a framework: what `createResourceServer` returns, web-standard pieces any server
 * mounts (the MCP SDK's `createMcpHandler`, Hono, Bun, Deno, Workers; Node through `@modelcontextprotocol/node`),
 * and the building blocks the NestJS and Express adapters are made of.
 *
 * Rules kept here:
 * - RFC 6750 Sections 2 and 3, RFC 9449 Section 7: every protected request is authenticated by the one
 *   {@link RequestAuthenticator}; every refusal is answered by the one `refusalResponse`.
 * - RFC 9728 Section 3.1, MCP 2025-11-25 "Protected Resource Metadata Discovery Requirements": the metadata document
 *   is served at the path-inserted well-known URL of the resource, and at the root one, which clients try next when a
 *   challenge names none; both serve this resource's document.
 * - Fetch CORS protocol, MCP Streamable HTTP "Security Warning": `protect` answers preflights and refuses a
 *   disallowed `Origin` before anything authenticates the request (`browser-cors.ts`).
 * - A handler gets the request's `AuthInfo` (never the token) and the MCP SDK's view of it (`authInfo`, as
 *   `createMcpHandler`'s `fetch` takes it).
 */
import type { AuthInfo as McpAuthInfo } from '@modelcontextprotocol/server';
import type { ProtectedResourceMetadata } from '@portcullis/metadata';
import { HttpRefusalError, isScopeToken, protectedResourceMetadataUrls } from '@portcullis/protocol';
import type { AuthInfo } from './auth/auth-info.js';
import type { BearerRequest } from './auth/bearer-request.js';
import { RequestAuthenticator, type RequiredScopes } from './auth/request-authenticator.js';
import { resolveResourceServerConfig, type ResourceServerConfig } from './config/resource-server.config.js';
import type { ResourceServerOptions } from './config/resource-server.options.js';
import { BearerChallengeError } from './errors/bearer-challenge.error.js';
import { describeError } from './errors/describe-error.js';
import { refusalResponse, serverErrorResponse, type RefusalResponse } from './errors/refusal.js';
import { browserAccess } from './http/browser-cors.js';
import { toMcpAuthInfo } from './mcp/mcp-auth-info.js';
import { mcpTokenVerifier, type ResourceTokenVerifier } from './mcp/token-verifier.js';
import {
  assertValidMetadata,
  METADATA_PREFLIGHT_HEADERS,
  METADATA_RESPONSE_HEADERS,
  protectedResourceMetadata,
} from './metadata/protected-resource-metadata.js';
import { TokenVerifier } from './tokens/token-verifier.service.js';
import { AuthorizationServerDirectory } from './tokens/discovery/authorization-server-directory.js';
import { UpstreamTokenExchange, type UpstreamAccessToken } from './exchange/upstream-token-exchange.js';
import { bearerRequestOf } from './web/web-request.js';
import { jsonResponse, refusalToResponse, withHeaders } from './web/web-response.js';

/** Where the resource server writes what it cannot tell a client: outages (warn) and unexpected errors (error). */
export interface ResourceServerLogger {
  warn(message: string): void;
  error(message: string, error?: unknown): void;
}

/** {@link ResourceServerOptions} and where to log. */
export interface CreateResourceServerOptions extends ResourceServerOptions {
  /** Default: the console. */
  readonly logger?: ResourceServerLogger;
}

/** What a protected handler is called with besides the request. */
export interface ProtectedContext {
  /** The MCP SDK's view of the token (`createMcpHandler`'s `fetch` reads it); its `token` is always empty. */
  readonly authInfo: McpAuthInfo;
  /** Who, through which client, with which scopes, until when; never the token. */
  readonly auth: AuthInfo;
}

/** A web-standard handler behind {@link ResourceServer.protect}. */
export type ProtectedHandler = (request: Request, context: ProtectedContext) => Response | Promise<Response>;

/** A web-standard handler: `(request) => Promise<Response>`. */
export type WebHandler = (request: Request) => Promise<Response>;

/** How {@link ResourceServer.protect} guards a handler. */
export interface ProtectOptions {
  /**
   * Every scope the operation needs, or a function deciding them per request (it gets a clone of the request, whose
   * body it may read); `[]` (default) means any valid token. A broader scope of `scopeHierarchy` satisfies a
   * narrower one; a token without them gets 403 `insufficient_scope` naming all of them.
   */
  readonly scopes?:
    readonly string[] | ((request: Request) => readonly string[] | Promise<readonly string[]>);
  /**
   * CORS for `browserOrigins` (preflights answered, allowed origins granted) and the Origin check (a request from
   * another origin refused with 403). Default `true`; `false` leaves both to the host.
   */
  readonly cors?: boolean;
}

/**
 * A protected resource: the web-standard `protect` and `metadataHandler`, the MCP SDK's token verifier, and the
 * framework-free steps adapters are built from.
 */
export interface ResourceServer {
  /** The validated configuration. */
  readonly config: ResourceServerConfig;
  /** The MCP SDK's `OAuthTokenVerifier`, sharing this resource's verdict cache and key sets. */
  readonly verifier: ResourceTokenVerifier;
  /** The paths the metadata document is served at: the path-inserted one first, then the root one. */
  readonly metadataPaths: readonly string[];
  /**
   * Wraps a web-standard handler with bearer authentication: the 401 and 403 challenges, DPoP when the resource
   * composes it, CORS and the Origin check.
   */
  protect(handler: ProtectedHandler, options?: ProtectOptions): WebHandler;
  /** Serves the metadata document at {@link metadataPaths} (`GET`, `HEAD`, and `OPTIONS` preflights); 404 elsewhere. */
  metadataHandler(): WebHandler;
  /** The metadata document. */
  metadataDocument(): ProtectedResourceMetadata;
  /**
   * Authenticates a request (for an adapter): its `AuthInfo`, or a `BearerChallengeError` for {@link refusal}.
   *
   * @throws BearerChallengeError for every refusal.
   */
  authenticate(request: BearerRequest, requiredScopes?: RequiredScopes): Promise<AuthInfo>;
  /** The response to an error `authenticate` threw (for an adapter); anything unexpected is a logged 500. */
  refusal(error: unknown): RefusalResponse;
  /**
   * The user's current access token at an upstream provider's `connection` (`upstream`: the provider they signed in
   * with at Portcullis's proxy), by RFC 8693 token exchange of the request's token at the authorization server that
   * issued it, with this resource server's client credentials (`tokens.introspection`); kept until shortly before
   * it expires. `auth` is the request's `AuthInfo` (or the SDK's, from `ctx.http.authInfo`).
   *
   * @throws ConnectionRequiredError when the user must connect first (its `interactionUri` says where)
   * @throws UpstreamTokenError when the exchange cannot be done
   */
  upstreamToken(auth: AuthInfo | McpAuthInfo, connection: string): Promise<UpstreamAccessToken>;
}

const consoleLogger: ResourceServerLogger = {
  warn: (message) => console.warn(`[resource-server] ${message}`),
  error: (message, error) => console.error(`[resource-server] ${message}`, error ?? ''),
};

/**
 * A `scopes` option as given: a list is checked (every entry an RFC 6749 scope-token) when the handler is protected,
 * so a typo fails at startup rather than refusing every request.
 *
 * @throws TypeError naming the first entry that is not a scope-token.
 */
export function checkedScopeOption<Resolver extends (...args: never[]) => unknown>(
  scopes: readonly string[] | Resolver | undefined,
): readonly string[] | Resolver | undefined {
  if (typeof scopes === 'function' || scopes === undefined) return scopes;
  for (const scope of scopes as readonly unknown[]) {
    if (typeof scope !== 'string' || !isScopeToken(scope)) {
      throw new TypeError(`"${String(scope)}" is not an RFC 6749 scope-token`);
    }
  }
  return Object.freeze([...(scopes as readonly string[])]);
}

/**
 * The resource server of a validated configuration (the NestJS module builds its own from its options).
 *
 * @throws Error when the metadata document the configuration describes is invalid.
 */
export function resourceServerFor(
  config: ResourceServerConfig,
  logger: ResourceServerLogger = consoleLogger,
): ResourceServer {
  assertValidMetadata(config);
  const directory = new AuthorizationServerDirectory(config);
  const tokens = new TokenVerifier(config, directory);
  const exchange = new UpstreamTokenExchange(config, directory);
  const authenticator = new RequestAuthenticator(config, tokens);
  const metadataPaths = Object.freeze(
    protectedResourceMetadataUrls(config.resource).map((url) => new URL(url).pathname),
  );

  const refusal = (error: unknown): RefusalResponse => {
    if (!(error instanceof BearerChallengeError)) {
      logger.error(`unexpected error: ${describeError(error)}`, error);
      return serverErrorResponse();
    }
    try {
      const response = refusalResponse(config, error);
      if (response.status >= 500) {
        const cause = error.error?.cause ?? error.error;
        if (error.error?.code === 'server_error')
          logger.error(`unexpected error: ${describeError(cause)}`, cause);
        else logger.warn(`${error.error?.code}: ${describeError(cause)}`);
      }
      return response;
    } catch (failure) {
      // Building the challenge failed (an extension broke its contract at run time): fail closed, as a 500.
      logger.error(`unexpected error: ${describeError(failure)}`, failure);
      return serverErrorResponse();
    }
  };

  const protect = (handler: ProtectedHandler, options: ProtectOptions = {}): WebHandler => {
    const scopes = checkedScopeOption(options.scopes);
    const cors = options.cors !== false;
    return async (request) => {
      const access = cors
        ? browserAccess(
            config.browserOrigins,
            {
              method: request.method,
              origin: request.headers.get('origin') ?? undefined,
              accessControlRequestMethod: request.headers.get('access-control-request-method') ?? undefined,
              accessControlRequestHeaders: request.headers.get('access-control-request-headers') ?? undefined,
            },
            { checkOrigin: true },
          )
        : undefined;
      if (access?.answer) return jsonResponse(access.answer.status, access.headers, access.answer.body);
      let auth: AuthInfo;
      try {
        auth = await authenticator.authenticate(await bearerRequestOf(request), () =>
          typeof scopes === 'function' ? scopes(request.clone()) : (scopes ?? []),
        );
      } catch (error) {
        return withHeaders(refusalToResponse(refusal(error)), access?.headers);
      }
      const response = await handler(request, { authInfo: toMcpAuthInfo(auth, config), auth });
      return withHeaders(response, access?.headers);
    };
  };

  const metadataHandler = (): WebHandler => async (request) => {
    const { pathname } = new URL(request.url);
    if (!metadataPaths.includes(pathname)) {
      return jsonResponse(
        404,
        { 'cache-control': 'no-store' },
        new HttpRefusalError('no_such_endpoint').toResponseBody(),
      );
    }
    if (request.method === 'OPTIONS')
      return new Response(null, { status: 204, headers: METADATA_PREFLIGHT_HEADERS });
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return jsonResponse(
        405,
        { 'cache-control': 'no-store', allow: 'GET, HEAD, OPTIONS' },
        new HttpRefusalError('method_not_allowed').toResponseBody(),
      );
    }
    const response = jsonResponse(200, METADATA_RESPONSE_HEADERS, protectedResourceMetadata(config));
    return request.method === 'HEAD' ? new Response(null, response) : response;
  };

  return {
    config,
    verifier: mcpTokenVerifier(config, tokens),
    metadataPaths,
    protect,
    metadataHandler,
    metadataDocument: () => protectedResourceMetadata(config),
    authenticate: (request, requiredScopes) => authenticator.authenticate(request, requiredScopes),
    refusal,
    upstreamToken: (auth, connection) => exchange.upstreamToken(auth, connection),
  };
}

/**
 * Makes any web-standard server an OAuth 2.1 protected resource, as MCP authorization describes it.
 *
 * @example
 * ```ts
 * const resourceServer = createResourceServer({ resource: 'https://mcp.example.com/mcp', authorizationServers: [issuer] });
 * const mcp = resourceServer.protect(createMcpHandler(newServer).fetch, { scopes: ['notes:read'] });
 * const metadata = resourceServer.metadataHandler();
 * export default { fetch: (request: Request) => (new URL(request.url).pathname === '/mcp' ? mcp : metadata)(request) };
 * ```
 *
 * @throws ResourceServerConfigError naming the first unusable option.
 * @see {@link https://www.rfc-editor.org/rfc/rfc9728 RFC 9728}
 * @see {@link https://www.rfc-editor.org/rfc/rfc6750 RFC 6750}
 * @see {@link https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization MCP Authorization}
 */
export function createResourceServer(options: CreateResourceServerOptions): ResourceServer {
  const { logger, ...resourceOptions } = options;
  return resourceServerFor(resolveResourceServerConfig(resourceOptions), logger);
}
