import { Inject, Injectable, SetMetadata, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { HttpRefusalError } from '@portcullis/protocol';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  AUTHORIZATION_SERVER_OPTIONS,
  type AuthorizationServerOptions,
} from '../config/authorization-server.options.js';
import type { RateLimitStore } from './rate-limit.store.js';

/** Injection token of the {@link RateLimitStore}. */
export const RATE_LIMIT_STORE = 'portcullis:rate-limit-store';

const RATE_LIMIT = 'portcullis:rate-limit';
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

/** Limits a route per issuer and client address with the named limit of `rateLimits` (requests per minute). */
export const RateLimit = (name: keyof AuthorizationServerOptions['rateLimits']) =>
  SetMetadata(RATE_LIMIT, name);

/**
 * A fixed-window rate limit per issuer, route and client address. (Not `@nestjs/throttler`: its 6.x release is CommonJS
 * requiring the ESM-only Nest 12, which loads in Node but not in Jest's module runtime.)
 *
 * @see https://www.rfc-editor.org/rfc/rfc6585#section-4
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @Inject(RATE_LIMIT_STORE) private readonly store: RateLimitStore,
    @Inject(AUTHORIZATION_SERVER_OPTIONS) private readonly options: AuthorizationServerOptions,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const name = this.reflector.get<keyof AuthorizationServerOptions['rateLimits'] | undefined>(
      RATE_LIMIT,
      context.getHandler(),
    );
    if (!name) return true;
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    const limit = this.options.rateLimits[name];
    // Per issuer: instances of one server share a budget through Redis; an authorization server and a proxy on the
    // same Redis do not.
    const { hits, resetMs } = await this.store.hit(`${this.options.issuer}|${name}|${request.ip}`, WINDOW_MS);
    const resetSeconds = Math.ceil(resetMs / 1000);
    // draft-ietf-httpapi-ratelimit-headers: what a well-behaved client needs to pace itself.
    reply.header('ratelimit-limit', String(limit));
    reply.header('ratelimit-remaining', String(Math.max(0, limit - hits)));
    reply.header('ratelimit-reset', String(resetSeconds));
    if (hits > limit) throw new RateLimitedError(resetSeconds);
    return true;
  }
}
