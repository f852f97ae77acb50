import {
  applyDecorators,
  createParamDecorator,
  Inject,
  Injectable,
  SetMetadata,
  UseInterceptors,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Observable } from 'rxjs';
import {
  AUTHORIZATION_SERVER_OPTIONS,
  type AuthorizationServerOptions,
} from '../config/authorization-server.options.js';
import { rawBody } from '../http/raw-body.js';
import type { RequestParameters } from '../http/request-parameters.js';
import {
  establishedParameters,
  type BackChannelCheck,
  type BackChannelContext,
} from './back-channel-check.js';

const BACK_CHANNEL_CHECKS = 'portcullis:back-channel-checks';

/** The context of each request the checks ran on, for {@link FormParameters}. */
const contexts = new WeakMap<FastifyRequest, BackChannelContext>();

/** Runs the checks a route lists with {@link BackChannel}. */
@Injectable()
export class BackChannelInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    @Inject(AUTHORIZATION_SERVER_OPTIONS) private readonly options: AuthorizationServerOptions,
  ) {}

  intercept(execution: ExecutionContext, next: CallHandler): Observable<unknown> {
    const checks =
      this.reflector.get<readonly BackChannelCheck[] | undefined>(
        BACK_CHANNEL_CHECKS,
        execution.getHandler(),
      ) ?? [];
    const http = execution.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const context: BackChannelContext = {
      request,
      reply: http.getResponse<FastifyReply>(),
      options: this.options,
      // The one place the body is read as sent.
      rawBody: rawBody(request),
    };
    contexts.set(request, context);
    for (const check of checks) check.run(context);
    return next.handle();
  }
}

/**
 * Runs `checks` in order before the route's handler (after its guards: the rate limit comes first), each endpoint
 * listing its own (see back-channel.checks.ts). The first check that throws ends the request; the exception filter
 * writes the error.
 */
export const BackChannel = (checks: readonly BackChannelCheck[]) =>
  applyDecorators(SetMetadata(BACK_CHANNEL_CHECKS, checks), UseInterceptors(BackChannelInterceptor));

/**
 * The form parameters the route's checks read (`formBodyCheck`), as a handler parameter.
 */
export const FormParameters = createParamDecorator(
  (_data: unknown, context: ExecutionContext): RequestParameters => {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const checked = contexts.get(request);
    if (!checked) throw new Error('no back-channel checks ran on this request');
    return establishedParameters(checked);
  },
);
