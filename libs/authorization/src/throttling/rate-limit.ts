import { HttpRefusalError } from '@portcullis/protocol';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthorizationServerOptions } from '../config/authorization-server.options.js';
import type { RateLimitStore } from './rate-limit.store.js';

/** Injection token of the {@link RateLimitStore}. */
export const RATE_LIMIT_STORE = 'portcullis:rate-limit-store';

const WINDOW_MS = 60_000;

/**
 * Thrown when a client is over its limit: the `rate_limited` refusal of `HTTP_REFUSALS` (429, RFC 6585 4), with
 * `Retry-After` in seconds (RFC 9110 10.2.3).
 */
export class RateLimitedError extends HttpRefusalError {
  constructor(readonly retryAfterSeconds: number) {
    super('rate_limited', { headers: { 'retry-after': String(retryAfterSeconds) } });
    this.name = 'RateLimitedError';
  }
}

/**
 * The rate limit of a route as a `preHandler` step (`http/route-prologue.ts`): a fixed window per issuer, limit name
 * and client address, shared by the instances of a server through the store (Redis when configured). (Not
 * `@nestjs/throttler`: its 6.x release is CommonJS requiring the ESM-only Nest 12, which loads in Node but not in
 * Jest's module runtime.)
 *
 * @see https://www.rfc-editor.org/rfc/rfc6585#section-4
 */
export function rateLimitStep(
  store: RateLimitStore,
  options: AuthorizationServerOptions,
  name: keyof AuthorizationServerOptions['rateLimits'],
): (request: FastifyRequest, reply: FastifyReply) => Promise<void> {
  // Per issuer: instances of one server share a budget through Redis; an authorization server and a proxy on the
  // same Redis do not.
  const prefix = `${options.issuer}|${name}|`;
  return async (request, reply) => {
    const limit = options.rateLimits[name];
    const { hits, resetMs } = await store.hit(prefix + request.ip, WINDOW_MS);
    const resetSeconds = Math.ceil(resetMs / 1000);
    // draft-ietf-httpapi-ratelimit-headers: what a well-behaved client needs to pace itself.
    reply.header('ratelimit-limit', String(limit));
    reply.header('ratelimit-remaining', String(Math.max(0, limit - hits)));
    reply.header('ratelimit-reset', String(resetSeconds));
    if (hits > limit) throw new RateLimitedError(resetSeconds);
  };
}
