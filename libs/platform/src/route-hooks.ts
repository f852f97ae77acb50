import type { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, RouteOptions } from 'fastify';

/** A route-level `preHandler` hook, as Fastify's route options hold them. */
export type RoutePreHandler = Extract<NonNullable<RouteOptions['preHandler']>, readonly unknown[]>[number];

/**
 * Appends `preHandler` hooks to each route Fastify registers from now on, as `hooksFor` gives them for the route
 * (undefined or none: the route is left as it is), after the ones it has. For work a route needs before its handler
 * that should not cost a Nest guard or interceptor. Call it when Nest configures middleware (a module's
 * `configure()`): the HTTP adapter is there, and no route yet. False when there is no Fastify instance (a Nest
 * application context without HTTP, which has no routes).
 */
export function appendRoutePreHandlers(
  adapterHost: HttpAdapterHost,
  hooksFor: (route: RouteOptions) => readonly RoutePreHandler[] | undefined,
): boolean {
  const fastify = adapterHost.httpAdapter?.getInstance<FastifyInstance>();
  if (typeof fastify?.addHook !== 'function') return false;
  fastify.addHook('onRoute', (route: RouteOptions) => {
    const hooks = hooksFor(route);
    if (hooks === undefined || hooks.length === 0) return;
    const before = route.preHandler === undefined ? [] : [route.preHandler].flat();
    route.preHandler = [...before, ...hooks];
  });
  return true;
}
