import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthorizationServerOptions } from '../config/authorization-server.options.js';
import type { RequestParameters } from '../http/request-parameters.js';

/**
 * What the back-channel checks read and establish, in order: each check may rely on what the checks before it set
 * (`params` after the form body check).
 */
export interface BackChannelContext {
  readonly request: FastifyRequest;
  readonly reply: FastifyReply;
  readonly options: AuthorizationServerOptions;
  /** The request body exactly as received (the platform keeps it, `rawBody: true`), or none. */
  readonly rawBody: Buffer | undefined;
  /** The parameters of a form body, once the form body check has read them. */
  params?: RequestParameters;
}

/**
 * One rule of the prologue of a back-channel endpoint (`/token`, `/introspect`, `/revoke`, `/register`), run before
 * the endpoint's own handler. It returns to accept, possibly after setting a response header, and throws an
 * `OAuthError` or an `HttpRefusalError` to reject; the exception filter writes the error, keeping the headers set
 * before it.
 */
export interface BackChannelCheck {
  readonly name: string;
  run(context: BackChannelContext): void;
}

/**
 * The form parameters an earlier check read. The order of the endpoint's check list guarantees them; missing ones are
 * a programming error in that order, never a client error.
 */
export function establishedParameters(context: BackChannelContext): RequestParameters {
  if (!context.params) throw new Error('back-channel checks out of order: no form parameters yet');
  return context.params;
}
