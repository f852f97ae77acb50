/**
 * The one place errors become responses on a protected resource.
 *
 * Rules kept here:
 * - RFC 6750 Section 3: a refused bearer request gets a `WWW-Authenticate: Bearer` challenge (see
 *   `bearer-challenge.ts`; with a proof-of-possession extension, its `DPoP` challenge too) and, when there is an
 *   error code, the RFC 6749 Section 5.2 JSON body `{ error, error_description }`; a request with no credentials
 *   gets the challenge alone (RFC 6750 Section 3.1 example). The status comes from the protocol's code-to-status
 *   table (a proof-of-possession error is 401 at a resource, RFC 9449 Section 7.1).
 * - RFC 9449 Sections 8 and 9: the response header fields an error travels with (`DPoP-Nonce` with
 *   `use_dpop_nonce`) are written with it.
 * - Every error response is `Cache-Control: no-store`: it depends on the credentials sent.
 * - Anything unexpected is `server_error` (500) with a generic description; the cause is logged, never sent.
 * - What the framework refuses before any handler (no route for the path or method, a body over the limit, a media
 *   type no parser takes, a malformed URL or body) keeps its 4xx status and gets the same RFC 6749 Section 5.2 body,
 *   `invalid_request`, without a challenge: it is not an authorization decision. Never the framework's own shape.
 */
import {
  Catch,
  HttpException,
  Inject,
  Logger,
  Optional,
  type ArgumentsHost,
  type ExceptionFilter,
} from '@nestjs/common';
import { describeFrameworkRefusal, OAuthError } from '@portcullis/protocol';
import type { FastifyReply } from 'fastify';
import { Counter, type Registry } from 'prom-client';
import type { ResourceServerConfig } from '../config/resource-server.config.js';
import { METRICS_REGISTRY, RESOURCE_SERVER_CONFIG } from '../resource-server.constants.js';
import { bearerChallenge } from './bearer-challenge.js';
import { BearerChallengeError } from './bearer-challenge.error.js';

interface ErrorResponse {
  status: number;
  body?: unknown;
  challenge?: string;
  headers?: Readonly<Record<string, string>>;
}

/**
 * Writes RFC 6750 error responses for the resource server, and `server_error` for anything unexpected.
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc6750#section-3 RFC 6750 Section 3}
 * @see {@link https://www.rfc-editor.org/rfc/rfc6749#section-5.2 RFC 6749 Section 5.2}
 */
@Catch()
export class ResourceServerExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('ResourceServer');

  readonly #refusals: Counter<'reason'> | undefined;

  constructor(
    @Inject(RESOURCE_SERVER_CONFIG) private readonly config: ResourceServerConfig,
    @Optional() @Inject(METRICS_REGISTRY) registry?: Registry,
  ) {
    this.#refusals = registry
      ? ((registry.getSingleMetric('portcullis_token_validation_failures_total') as
          Counter<'reason'> | undefined) ??
        new Counter({
          name: 'portcullis_token_validation_failures_total',
          help: 'Requests to a protected route refused by the resource server, by reason: missing (no credentials) or the error code',
          labelNames: ['reason'],
          registers: [registry],
        }))
      : undefined;
  }

  catch(exception: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    if (reply.sent || reply.raw.headersSent) {
      // A streamed response (an MCP SSE stream) already started: nothing can be said to the client any more.
      this.logger.error(`error after the response started: ${describe(exception)}`, stackOf(exception));
      return;
    }
    let response: ErrorResponse;
    try {
      response = this.toResponse(exception);
    } catch (failure) {
      // Building the challenge failed (an extension broke its contract at run time): fail closed, as a 500.
      response = this.serverError(failure);
    }
    reply.status(response.status);
    for (const [name, value] of Object.entries(response.headers ?? {})) reply.header(name, value);
    reply.header('cache-control', 'no-store');
    if (response.challenge) reply.header('www-authenticate', response.challenge);
    if (response.body === undefined) reply.send();
    else reply.type('application/json').send(response.body);
  }

  private toResponse(exception: unknown): ErrorResponse {
    if (exception instanceof BearerChallengeError) {
      this.#refusals?.inc({ reason: exception.error?.code ?? 'missing' });
      return this.oauth(exception.error, exception.requiredScopes, exception.status, exception.presentedWith);
    }
    if (exception instanceof OAuthError) return this.oauth(exception, [], exception.status, 'bearer');
    if (exception instanceof HttpException && exception.getStatus() < 500)
      return this.httpException(exception);
    return this.serverError(exception);
  }

  private httpException(exception: HttpException): ErrorResponse {
    const status = exception.getStatus();
    const response = exception.getResponse();
    // A 400 (a body or URL the parser refused) says why in its message; the others get a fixed text rather than
    // the framework's ("Cannot GET /x").
    const description =
      status === 400
        ? typeof response === 'string'
          ? response
          : exception.message
        : describeFrameworkRefusal(status);
    // The status is the framework's (404, 413, 415, ...), not the table's 400 for `invalid_request`: the request
    // was malformed in the way that status names.
    return { status, body: new OAuthError('invalid_request', description).toResponseBody() };
  }

  private oauth(
    error: OAuthError | undefined,
    requiredScopes: readonly string[],
    status: number,
    presentedWith: 'bearer' | 'proof',
  ): ErrorResponse {
    if (error?.code === 'server_error') return this.serverError(error.cause ?? error);
    if (status >= 500) {
      this.logger.warn(`${error?.code}: ${describe(error?.cause ?? error)}`);
    }
    const { config } = this;
    const challenge = bearerChallenge({
      status,
      ...(error ? { error } : {}),
      requiredScopes,
      resource: config.resource,
      metadataUrl: config.metadataUrl,
      scopesSupported: config.scopesSupported,
      revision: config.revision,
      extensions: config.extensions,
      presentedWith,
    });
    return {
      status,
      ...(error ? { body: error.toResponseBody(), headers: error.headers } : {}),
      ...(challenge ? { challenge } : {}),
    };
  }

  private serverError(cause: unknown): ErrorResponse {
    this.logger.error(`unexpected error: ${describe(cause)}`, stackOf(cause));
    const error = new OAuthError('server_error', 'The server could not complete the request.');
    return { status: error.status, body: error.toResponseBody() };
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? ` (cause: ${error.cause.message})` : '';
    return `${error.name}: ${error.message}${cause}`;
  }
  return String(error);
}

function stackOf(error: unknown): string | undefined {
  return error instanceof Error ? error.stack : undefined;
}
