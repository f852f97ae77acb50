import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthorizationServerOptions } from '../config/authorization-server.options.js';
import { rawBody } from '../http/raw-body.js';
import type { RequestParameters } from '../http/request-parameters.js';
import {
  establishedParameters,
  type BackChannelCheck,
  type BackChannelContext,
} from './back-channel-check.js';

/** The context of each request the checks ran on, for {@link FormParameters}. */
const contexts = new WeakMap<FastifyRequest, BackChannelContext>();

/**
 * A route's back-channel checks as a `preHandler` step (`http/route-prologue.ts`, where `@BackChannel()` lists them):
 * run in order; the first that throws ends the request, and the app's exception filter writes the error.
 */
export function backChannelStep(
  options: AuthorizationServerOptions,
  checks: readonly BackChannelCheck[],
): (request: FastifyRequest, reply: FastifyReply, done: () => void) => void {
  // Callback-style (one promise less per request); a check's throw is caught by Fastify and handed to the error
  // handler, as a rejection would be.
  return (request, reply, done) => {
    const context: BackChannelContext = {
      request,
      reply,
      options,
      // The one place the body is read as sent.
      rawBody: rawBody(request),
    };
    contexts.set(request, context);
    for (const check of checks) check.run(context);
    done();
  };
}

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
