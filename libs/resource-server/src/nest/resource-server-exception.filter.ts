/**
 * Where errors become responses on a NestJS protected resource: two filters over the core's `refusalResponse`.
 *
 * - `BearerChallengeFilter` answers the refusals of the bearer authentication, on the routes the scope decorators protect
 *   and nowhere else: the host app's own errors, on those routes or any other, are left to the host.
 * - `ResourceServerExceptionFilter` is a whole app's filter, for an app that wants one error format everywhere (the
 *   Portcullis protected server installs it as `APP_FILTER`); the module never installs it.
 *
 * Rules kept here:
 * - RFC 6750 Section 3, RFC 9449 Sections 7.1, 8 and 9: see `errors/refusal.ts` (challenge, status, body, the
 *   headers an error travels with, `Cache-Control: no-store`).
 * - Anything unexpected is `server_error` (500) with a generic description; the cause is logged, never sent.
 * - For the app filter: what the framework refuses before any handler (no route for the path or method, a body
 *   over the limit, a media type no parser takes, a malformed URL or body) keeps its 4xx status and gets the same
 *   RFC 6749 Section 5.2 body, `invalid_request`, without a challenge: it is not an authorization decision. Never
 *   the framework's own shape.
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
import type { Counter, Registry } from 'prom-client';
import type { ResourceServerConfig } from '../config/resource-server.config.js';
import { BearerChallengeError } from '../errors/bearer-challenge.error.js';
import { describeError, stackOf } from '../errors/describe-error.js';
import { refusalResponse, serverErrorResponse, type RefusalResponse } from '../errors/refusal.js';
import { METRICS_REGISTRY, RESOURCE_SERVER_CONFIG } from './resource-server.constants.js';

// prom-client is an optional peer dependency: an app without it (one that provides no METRICS_REGISTRY) must still
// load this adapter, so it is imported only where it is installed.
const promClient = await import('prom-client').catch((error: unknown) => {
  if ((error as { code?: unknown }).code === 'ERR_MODULE_NOT_FOUND') return undefined;
  throw error;
});

/**
 * Writes RFC 6750 error responses for anything thrown in the app, and `server_error` for anything unexpected.
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
    this.#refusals =
      registry && promClient
        ? ((registry.getSingleMetric('portcullis_token_validation_failures_total') as
            Counter<'reason'> | undefined) ??
          new promClient.Counter({
            name: 'portcullis_token_validation_failures_total',
            help: 'Requests to a protected route refused by the resource server, by reason: missing (no credentials) or the error code',
            labelNames: ['reason'],
            registers: [registry],
          }))
        : undefined;
  }

  catch(exception: unknown, host: ArgumentsHost): void {
    this.answer(exception, host.switchToHttp().getResponse<FastifyReply>());
  }

  /** Answers `reply` for `exception`, as {@link catch} does (the route authentication hook's refusals). */
  answer(exception: unknown, reply: FastifyReply): void {
    if (reply.sent || reply.raw.headersSent) {
      // A streamed response (an MCP SSE stream) already started: nothing can be said to the client any more.
      this.logger.error(`error after the response started: ${describeError(exception)}`, stackOf(exception));
      return;
    }
    let response: RefusalResponse;
    try {
      response = this.toResponse(exception);
    } catch (failure) {
      // Building the challenge failed (an extension broke its contract at run time): fail closed, as a 500.
      response = this.serverError(failure);
    }
    reply.status(response.status);
    for (const [name, value] of Object.entries(response.headers)) reply.header(name, value);
    reply.header('cache-control', 'no-store');
    if (response.body === undefined) reply.send();
    else reply.type('application/json').send(response.body);
  }

  private toResponse(exception: unknown): RefusalResponse {
    if (exception instanceof BearerChallengeError) {
      this.#refusals?.inc({ reason: exception.error?.code ?? 'missing' });
      return this.refusal(exception);
    }
    if (exception instanceof OAuthError) return this.refusal(new BearerChallengeError(exception));
    if (exception instanceof HttpException && exception.getStatus() < 500)
      return this.httpException(exception);
    return this.serverError(exception);
  }

  private httpException(exception: HttpException): RefusalResponse {
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
    return { status, headers: {}, body: new OAuthError('invalid_request', description).toResponseBody() };
  }

  private refusal(refusal: BearerChallengeError): RefusalResponse {
    const { error } = refusal;
    if (error?.code === 'server_error') return this.serverError(error.cause ?? error);
    if (refusal.status >= 500) this.logger.warn(`${error?.code}: ${describeError(error?.cause ?? error)}`);
    return refusalResponse(this.config, refusal);
  }

  private serverError(cause: unknown): RefusalResponse {
    this.logger.error(`unexpected error: ${describeError(cause)}`, stackOf(cause));
    return serverErrorResponse();
  }
}

/**
 * Answers the bearer authentication's refusals on the routes it protects (applied by the scope decorators). Whatever
 * else such a route throws goes on to the host app's own filters.
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc6750#section-3 RFC 6750 Section 3}
 */
@Catch(BearerChallengeError)
export class BearerChallengeFilter extends ResourceServerExceptionFilter {}
