import { Catch, HttpException, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { describeFrameworkRefusal, OAuthError } from '@portcullis/protocol';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RateLimitedError } from '../throttling/rate-limit.guard.js';

/**
 * The one place errors become responses on the authorization server: RFC 6749 5.2 JSON with
 * `Cache-Control: no-store`. `invalid_client` carries `WWW-Authenticate: Basic` (RFC 6749 5.2). Transport
 * failures (a body over the limit, a media type the route does not parse, malformed JSON) keep their HTTP status
 * and become `invalid_request`; anything unexpected is a `server_error` whose cause is logged, never sent.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-5.2
 */
@Catch()
export class OAuthExceptionFilter implements ExceptionFilter {
  readonly #logger = new Logger('OAuthExceptionFilter');

  catch(exception: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    if (reply.sent) return;
    reply.header('cache-control', 'no-store').header('pragma', 'no-cache');

    if (exception instanceof OAuthError) {
      if (exception.code === 'invalid_client') reply.header('www-authenticate', 'Basic realm="token"');
      reply.status(exception.status).send(exception.toResponseBody());
      return;
    }
    if (exception instanceof RateLimitedError) {
      reply
        .status(429)
        .header('retry-after', String(exception.retryAfterSeconds))
        .send({ error: 'temporarily_unavailable', error_description: 'too many requests; retry later' });
      return;
    }
    const status = statusOf(exception);
    if (status === 400 && isRegistration(host.switchToHttp().getRequest<FastifyRequest>())) {
      // RFC 7591 3.2.2: a registration body the JSON parser refused (malformed, or a `__proto__` or
      // `constructor.prototype` member) is bad client metadata.
      reply.status(400).send({
        error: 'invalid_client_metadata',
        error_description: 'the client metadata must be a JSON object without __proto__ or constructor.prototype members',
      });
      return;
    }
    if (status !== undefined && status >= 400 && status < 500) {
      reply.status(status).send({ error: 'invalid_request', error_description: describeFrameworkRefusal(status) });
      return;
    }
    this.#logger.error({ err: exception }, 'unexpected error');
    reply.status(500).send({ error: 'server_error', error_description: 'the server could not process the request' });
  }
}

function statusOf(exception: unknown): number | undefined {
  if (exception instanceof HttpException) return exception.getStatus();
  const status = (exception as { statusCode?: unknown } | undefined)?.statusCode;
  return typeof status === 'number' ? status : undefined;
}


function isRegistration(request: FastifyRequest): boolean {
  return request.method === 'POST' && /(^|\/)register$/.test(request.routeOptions.url ?? '');
}
