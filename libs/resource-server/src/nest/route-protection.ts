/**
 * What the scope decorators record on a route for the authentication hook (`route-authentication.hook.ts`): the
 * route's protection, in the route's Fastify configuration, so that the hook is attached to exactly the routes that
 * carry it, when Fastify registers them.
 *
 * Nest hands a handler's `@RouteConfig()` metadata to Fastify as the route's `config` (the platform's
 * `FASTIFY_ROUTE_CONFIG_METADATA`, copied to the route's handler with the rest of the method's metadata). The scope
 * decorators merge their entry into that metadata rather than replace it, so a `@RouteConfig()` written below them
 * keeps its fields; one written above them replaces the whole metadata, entry included, which the hook finds at
 * boot and refuses to start with (fail closed: a route the decorators protect is never served without its check).
 */
import { PATH_METADATA } from '@nestjs/common/constants.js';
import type { RequiredScopesResolverType } from './scope-resolver.js';

/**
 * `@nestjs/platform-fastify`'s metadata key of a route's Fastify `config` (its `FASTIFY_ROUTE_CONFIG_METADATA`,
 * written by `@RouteConfig()`); not imported, since the platform is the host app's and not a dependency of this
 * library (a test checks the two are the same).
 */
export const FASTIFY_ROUTE_CONFIG_METADATA = '__fastify_route_config__';

/** The field of a route's Fastify `config` that holds its {@link RouteProtection}. */
export const ROUTE_PROTECTION_CONFIG = 'portcullisProtection';

/** How a route is protected: the scopes it declares and the resolver that adds the request's own, if any. */
export interface RouteProtection {
  readonly scopes?: readonly string[];
  readonly resolver?: RequiredScopesResolverType;
}

type RouteConfigMetadata = Readonly<Record<string, unknown>>;

/** The protection recorded on `handler` (a controller method), if any. */
export function routeProtectionOf(handler: object): RouteProtection | undefined {
  const config = Reflect.getMetadata(FASTIFY_ROUTE_CONFIG_METADATA, handler) as
    RouteConfigMetadata | undefined;
  return config?.[ROUTE_PROTECTION_CONFIG] as RouteProtection | undefined;
}

/**
 * Records `protection` on `handler`, over what is there: the fields given win over the ones recorded (a method's
 * decorators are applied bottom up; `@RequireScopes` and `@ResolveScopes` on one method give both), except where
 * `asDefault`, for a controller's protection under its methods' own.
 */
function record(handler: object, protection: RouteProtection, asDefault: boolean): void {
  const config = (Reflect.getMetadata(FASTIFY_ROUTE_CONFIG_METADATA, handler) ?? {}) as RouteConfigMetadata;
  const current = (config[ROUTE_PROTECTION_CONFIG] ?? {}) as RouteProtection;
  const merged: RouteProtection = Object.freeze(
    asDefault ? { ...protection, ...current } : { ...current, ...protection },
  );
  Reflect.defineMetadata(
    FASTIFY_ROUTE_CONFIG_METADATA,
    { ...config, [ROUTE_PROTECTION_CONFIG]: merged },
    handler,
  );
}

/** The route methods of a controller class, its own and inherited (Nest routes both). */
export function routeMethodsOf(controller: abstract new (...args: never[]) => unknown): object[] {
  const methods: object[] = [];
  const seen = new Set<string>();
  for (
    let prototype = controller.prototype as object | null;
    prototype && prototype !== Object.prototype;
    prototype = Object.getPrototypeOf(prototype) as object | null
  ) {
    for (const name of Object.getOwnPropertyNames(prototype)) {
      if (name === 'constructor' || seen.has(name)) continue;
      seen.add(name);
      const value = Object.getOwnPropertyDescriptor(prototype, name)?.value as unknown;
      if (typeof value === 'function' && Reflect.getMetadata(PATH_METADATA, value) !== undefined) {
        methods.push(value);
      }
    }
  }
  return methods;
}

/**
 * A method or class decorator recording `protection` on the route (on every route of the controller, under what a
 * route declares itself).
 */
export function ProtectRoute(protection: RouteProtection): MethodDecorator & ClassDecorator {
  const decorator = (
    target: object,
    _key?: string | symbol,
    descriptor?: TypedPropertyDescriptor<unknown>,
  ) => {
    if (descriptor) {
      record(descriptor.value as object, protection, false);
      return descriptor;
    }
    for (const method of routeMethodsOf(target as abstract new (...args: never[]) => unknown)) {
      record(method, protection, true);
    }
    return target;
  };
  return decorator as MethodDecorator & ClassDecorator;
}
