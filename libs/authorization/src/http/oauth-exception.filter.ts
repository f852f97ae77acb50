import { Catch, HttpException, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { DatabaseUnavailableError, translateDatabaseError } from '@portcullis/persistence';
import { describeFrameworkRefusal, HttpRefusalError, OAuthError } from '@portcullis/protocol';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sendPage } from '../authorize/flow/answer.js';
import { unavailablePage } from '../authorize/pages/error.page.js';

/**
 * The one place errors become responses on the authorization server: RFC 6749 5.2 JSON with
 * `Cache-Control: no-store`. No status is chosen here: an `OAuthError` is sent with the status of its code
 * (`OAUTH_ERROR_STATUS`), an `HttpRefusalError` (a rate limit, a body an endpoint will not read) with the status
 * and body of its refusal (`HTTP_REFUSALS`) and its headers (`Retry-After`), and what the framework refused before
 * any handler (no route, a body over the limit, a media type no parser takes, malformed JSON) with the
 * framework's own 4xx status as `invalid_request`. `invalid_client` carries `WWW-Authenticate: Basic`
 * (RFC 6749 5.2). A database that cannot be reached is `temporarily_unavailable`, 503 with `Retry-After` (a page
 * for a browser). Anything unexpected is a `server_error` whose cause is logged, never sent.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-5.2
 */
@Catch()
export class OAuthExceptionFilter implements ExceptionFilter {
  readonly #logger = new Logger('OAuthExceptionFilter');

  catch(caught: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    if (reply.sent) return;
    reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
    // An outage of the database is the client's to retry (503, Retry-After), never a 500.
    const exception = translateDatabaseError(caught);
    if (exception instanceof DatabaseUnavailableError) {
      this.#logger.warn({ err: exception.cause }, 'database unavailable');
      const request = host.switchToHttp().getRequest<FastifyRequest>();
      if (acceptsHtml(request)) {
        for (const [name, value] of Object.entries(exception.headers)) reply.header(name, value);
        sendPage(reply, exception.status, unavailablePage(exception.headers['retry-after']));
        return;
      }
    }

    if (exception instanceof OAuthError) {
      this.#sendOAuthError(reply, exception);
      return;
    }
    if (exception instanceof HttpRefusalError) {
      for (const [name, value] of Object.entries(exception.headers)) reply.header(name, value);
      reply.status(exception.status).send(exception.toResponseBody());
      return;
    }
    const status = statusOf(exception);
    if (status === 400 && isRegistration(host.switchToHttp().getRequest<FastifyRequest>())) {
      // RFC 7591 3.2.2: a registration body the JSON parser refused (malformed, or a `__proto__` or
      // `constructor.prototype` member) is bad client metadata.
      this.#sendOAuthError(
        reply,
        new OAuthError(
          'invalid_client_metadata',
          'the client metadata must be a JSON object without __proto__ or constructor.prototype members',
        ),
      );
      return;
    }
    if (status !== undefined && status >= 400 && status < 500) {
      // The framework's status (404, 413, 415, ...), not the table's 400 for `invalid_request`: the request was
      // refused in the way that status names.
      reply
        .status(status)
        .send(new OAuthError('invalid_request', describeFrameworkRefusal(status)).toResponseBody());
      return;
    }
    this.#logger.error({ err: exception }, 'unexpected error');
    this.#sendOAuthError(reply, new OAuthError('server_error', 'the server could not process the request'));
  }

  /** Sends `error` with the status of its code (`OAUTH_ERROR_STATUS`). */
  #sendOAuthError(reply: FastifyReply, error: OAuthError): void {
    if (error.code === 'invalid_client') reply.header('www-authenticate', 'Basic realm="token"');
    for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
    reply.status(error.status).send(error.toResponseBody());
  }
}

function statusOf(exception: unknown): number | undefined {
  if (exception instanceof HttpException) return exception.getStatus();
  const status = (exception as { statusCode?: unknown } | undefined)?.statusCode;
  return typeof status === 'number' ? status : undefined;
}

/** A browser on one of the pages (it asked for HTML): it gets a page, not a JSON body. */
function acceptsHtml(request: FastifyRequest): boolean {
  return (request.headers.accept ?? '').includes('text/html');
}

function isRegistration(request: FastifyRequest): boolean {
  return request.method === 'POST' && /(^|\/)register$/.test(request.routeOptions.url ?? '');
}
