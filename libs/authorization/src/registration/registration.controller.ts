import {
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
  Options,
  Param,
  PayloadTooLargeException,
  Post,
  Put,
  Req,
  Res,
  UnsupportedMediaTypeException,
  UseGuards,
} from '@nestjs/common';
import { getRevision } from '@portcullis/revisions';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  AUTHORIZATION_SERVER_OPTIONS,
  type AuthorizationServerOptions,
} from '../config/authorization-server.options.js';
import { allowCors, answerPreflight } from '../http/cors.js';
import { mediaType } from '../http/request-parameters.js';
import { RateLimit, RateLimitGuard } from '../throttling/rate-limit.guard.js';
import { checkInitialAccessToken } from './initial-access-token.check.js';
import { RegistrationService, type RegistrationResponse } from './registration.service.js';

/**
 * The largest registration request accepted, in bytes (the platform's own limit for every route is 64 KiB).
 *
 * @see https://www.rfc-editor.org/rfc/rfc7591#section-3.1
 */
export const MAX_REGISTRATION_BODY = 16 * 1024;

/**
 * The client registration endpoint (RFC 7591 3), mounted only when registration is enabled. In order: the rate
 * limit, the initial access token when one is configured, `application/json` only, at most
 * {@link MAX_REGISTRATION_BODY} bytes (by `Content-Length`, and by the bytes received for a chunked body), then
 * the metadata checks of {@link RegistrationService}. 201 with the Client Information Response; every answer
 * carries `Cache-Control: no-store` (it may hold a secret; errors through the exception filter). Where the
 * revision deprecates dynamic registration, responses say so with an RFC 9745 `Deprecation` header, since AS
 * metadata has no standard member for it.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7591#section-3.1
 * @see https://www.rfc-editor.org/rfc/rfc7591#section-3.2
 * @see https://www.rfc-editor.org/rfc/rfc9745
 */
@Controller()
export class RegistrationController {
  readonly #deprecation?: string;

  constructor(
    private readonly registration: RegistrationService,
    @Inject(AUTHORIZATION_SERVER_OPTIONS) private readonly options: AuthorizationServerOptions,
  ) {
    if (getRevision(options.revision).supports('dynamic-client-registration-deprecated')) {
      // RFC 9745 2.1: an sf-date, the moment the deprecation took effect (the revision's own date).
      this.#deprecation = `@${Math.floor(Date.parse(`${options.revision}T00:00:00Z`) / 1000)}`;
    }
  }

  @Options('register')
  preflight(@Res() reply: FastifyReply): void {
    answerPreflight(reply, 'POST');
  }

  @Post('register')
  @HttpCode(201)
  @UseGuards(RateLimitGuard)
  @RateLimit('register')
  async register(
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<RegistrationResponse> {
    allowCors(reply);
    reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
    if (this.#deprecation) reply.header('deprecation', this.#deprecation);
    checkInitialAccessToken(
      this.options.registration?.initialAccessToken,
      request.headers.authorization,
      reply,
    );
    checkJsonBody(request);
    return this.registration.register(request.body);
  }

  @Options('register/:clientId')
  managementPreflight(@Res() reply: FastifyReply): void {
    answerPreflight(reply, 'GET, PUT, DELETE');
  }

  /** RFC 7592 2.1: the registration as it stands, for the holder of its registration access token. */
  @Get('register/:clientId')
  @UseGuards(RateLimitGuard)
  @RateLimit('register')
  async read(
    @Param('clientId') clientId: string,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<RegistrationResponse> {
    this.#headers(reply);
    return this.registration.read(clientId, request.headers.authorization, reply);
  }

  /** RFC 7592 2.2: replaces the client's metadata, checked as a registration is. */
  @Put('register/:clientId')
  @UseGuards(RateLimitGuard)
  @RateLimit('register')
  async update(
    @Param('clientId') clientId: string,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<RegistrationResponse> {
    this.#headers(reply);
    checkJsonBody(request);
    return this.registration.update(clientId, request.headers.authorization, reply, request.body);
  }

  /** RFC 7592 2.3: deletes the client, revoking its grants; 204. */
  @Delete('register/:clientId')
  @HttpCode(204)
  @UseGuards(RateLimitGuard)
  @RateLimit('register')
  async remove(
    @Param('clientId') clientId: string,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<void> {
    this.#headers(reply);
    await this.registration.delete(clientId, request.headers.authorization, reply);
  }

  #headers(reply: FastifyReply): void {
    allowCors(reply);
    reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
    if (this.#deprecation) reply.header('deprecation', this.#deprecation);
  }
}

/** RFC 7591 3.1: an `application/json` document of at most {@link MAX_REGISTRATION_BODY} bytes. */
function checkJsonBody(request: FastifyRequest): void {
  // RFC 7591 3.1: the request is an application/json document.
  if (mediaType(request.headers['content-type']) !== 'application/json') {
    throw new UnsupportedMediaTypeException('the registration request must be application/json');
  }
  const declared = Number(request.headers['content-length'] ?? 0);
  const received = (request as FastifyRequest & { rawBody?: Buffer }).rawBody?.length ?? 0;
  if (declared > MAX_REGISTRATION_BODY || received > MAX_REGISTRATION_BODY) {
    throw new PayloadTooLargeException(`the registration request exceeds ${MAX_REGISTRATION_BODY} bytes`);
  }
}
