/**
 * What a back-channel route runs before its handler (its rate limit, then its back-channel checks), recorded by
 * `@RateLimit()` and `@BackChannel()` in the route's Fastify configuration and run as `preHandler` hooks of that
 * route, rather than as a Nest guard and a Nest interceptor: those cost every request an execution context, the
 * guards consumer, and the interceptors' Observable chain before the handler starts (a token refresh spent more in
 * them than in its own checks).
 *
 * Nest hands a handler's `@RouteConfig()` metadata to Fastify as the route's `config`
 * (`FASTIFY_ROUTE_CONFIG_METADATA`); the decorators merge their entry into it, so a `@RouteConfig()` written below
 * them keeps its fields. Fail closed: the decorators also mark the method itself, and the app refuses to start when a
 * marked method's route was not given its prologue (a `@RouteConfig()` written above them replaces the configuration,
 * or an adapter other than Fastify's): a route is never served without its rate limit or its checks.
 */
import { Inject, Injectable, SetMetadata, type OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost, MetadataScanner, ModulesContainer } from '@nestjs/core';
import { FASTIFY_ROUTE_CONFIG_METADATA } from '@nestjs/platform-fastify/constants.js';
import { appendRoutePreHandlers, type RoutePreHandler } from '@portcullis/platform';
import type { BackChannelCheck } from '../back-channel/back-channel-check.js';
import { backChannelStep } from '../back-channel/back-channel.js';
import {
  AUTHORIZATION_SERVER_OPTIONS,
  type AuthorizationServerOptions,
} from '../config/authorization-server.options.js';
import { RATE_LIMIT_STORE, rateLimitStep } from '../throttling/rate-limit.js';
import type { RateLimitStore } from '../throttling/rate-limit.store.js';

/** The field of a route's Fastify `config` that holds its {@link RoutePrologue}. */
const ROUTE_PROLOGUE_CONFIG = 'portcullisPrologue';
/** Set on each method a prologue decorator is applied to, for the boot check. */
const HAS_PROLOGUE = 'portcullis:route-prologue';

export type RateLimitName = keyof AuthorizationServerOptions['rateLimits'];

/** What runs before a route's handler, in this order. */
export interface RoutePrologue {
  readonly rateLimit?: RateLimitName;
  readonly checks?: readonly BackChannelCheck[];
}

/**
 * Limits the route per issuer and client address with the named limit of `rateLimits` (requests per minute), before
 * anything else the route runs.
 */
export const RateLimit = (name: RateLimitName): MethodDecorator => recordPrologue({ rateLimit: name });

/**
 * Runs `checks` in order before the route's handler (after its rate limit), each endpoint listing its own (see
 * back-channel.checks.ts). The first check that throws ends the request; the exception filter writes the error.
 */
export const BackChannel = (checks: readonly BackChannelCheck[]): MethodDecorator =>
  recordPrologue({ checks });

/** A method decorator merging `part` into the route's prologue (over what a decorator below it recorded). */
function recordPrologue(part: RoutePrologue): MethodDecorator {
  const mark = SetMetadata(HAS_PROLOGUE, true);
  return (target, key, descriptor) => {
    const handler = descriptor.value as object;
    const config = (Reflect.getMetadata(FASTIFY_ROUTE_CONFIG_METADATA, handler) ?? {}) as Record<
      string,
      unknown
    >;
    const current = (config[ROUTE_PROLOGUE_CONFIG] ?? {}) as RoutePrologue;
    Reflect.defineMetadata(
      FASTIFY_ROUTE_CONFIG_METADATA,
      { ...config, [ROUTE_PROLOGUE_CONFIG]: Object.freeze({ ...current, ...part }) },
      handler,
    );
    return mark(target, key, descriptor);
  };
}

function prologueOf(config: unknown): RoutePrologue | undefined {
  return (config as Record<string, unknown> | undefined)?.[ROUTE_PROLOGUE_CONFIG] as
    RoutePrologue | undefined;
}

/** Attaches each route's prologue when Fastify registers the route, and checks at boot that none was missed. */
@Injectable()
export class RoutePrologueHook implements OnApplicationBootstrap {
  // The prologues attached (one frozen object per decorated method, shared by its paths).
  readonly #attached = new WeakSet<RoutePrologue>();
  #attaching = false;

  constructor(
    @Inject(HttpAdapterHost) private readonly adapterHost: HttpAdapterHost,
    @Inject(ModulesContainer) private readonly modules: ModulesContainer,
    @Inject(RATE_LIMIT_STORE) private readonly store: RateLimitStore,
    @Inject(AUTHORIZATION_SERVER_OPTIONS) private readonly options: AuthorizationServerOptions,
  ) {}

  /**
   * Watches the routes Fastify registers from now on. Called by the module when Nest configures middleware: the
   * HTTP adapter is there, and no route yet.
   */
  attach(): void {
    if (this.#attaching) return;
    this.#attaching = appendRoutePreHandlers(this.adapterHost, (route) => {
      const prologue = prologueOf(route.config);
      if (prologue === undefined) return undefined;
      this.#attached.add(prologue);
      return [
        ...(prologue.rateLimit === undefined
          ? []
          : [rateLimitStep(this.store, this.options, prologue.rateLimit) as RoutePreHandler]),
        ...(prologue.checks === undefined
          ? []
          : [backChannelStep(this.options, prologue.checks) as RoutePreHandler]),
      ];
    });
  }

  /** Refuses to start when a method given a prologue has a route that was not attached to it. */
  onApplicationBootstrap(): void {
    if (this.adapterHost.httpAdapter === undefined) return;
    const scanner = new MetadataScanner();
    for (const module of this.modules.values()) {
      for (const wrapper of module.controllers.values()) {
        const prototype = (wrapper.metatype as { prototype?: object } | null)?.prototype;
        if (!prototype || wrapper.isAlias) continue;
        for (const name of scanner.getAllMethodNames(prototype)) {
          const method = (prototype as Record<string, unknown>)[name] as object;
          if (Reflect.getMetadata(HAS_PROLOGUE, method) !== true) continue;
          const prologue = prologueOf(Reflect.getMetadata(FASTIFY_ROUTE_CONFIG_METADATA, method));
          if (prologue === undefined || !this.#attached.has(prologue)) {
            throw new Error(
              `${wrapper.name.toString()}.${name} has a rate limit or back-channel checks, but its route was not ` +
                'given them: the authorization server needs the Fastify platform, and a @RouteConfig() on such a ' +
                'route must be written below @RateLimit() and @BackChannel() (above them, it replaces the route ' +
                'configuration they record)',
            );
          }
        }
      }
    }
  }
}
