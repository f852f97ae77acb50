/**
 * The authentication of the routes the scope decorators protect, as a Fastify `preHandler` hook of each such route
 * rather than as a Nest guard: the same core (`auth/request-authenticator.ts`, its rules and their order), the same
 * scopes (the route's declared ones, then its resolver's), the same answers (`BearerChallengeFilter`'s), and the
 * same `AuthInfo` on the request for `@CurrentAuth()`. A Nest guard costs every request an execution context, the
 * guards consumer and three promises before any of that work starts; on a route whose handler does little, that was
 * a tenth of the request (the bench's `resource-server` scenario).
 *
 * Rules kept here:
 * - Fail closed: every controller method that a scope decorator protects (on itself or on its controller) must have
 *   its route attached to the hook, else the app does not start (a `@RouteConfig()` written above the decorator,
 *   which replaces the route's configuration and with it the protection; an adapter other than Fastify's).
 * - After the body is parsed (`preHandler`), as the guard ran: the request checks read it (RFC 6750 Section 2.2).
 * - A refusal is answered here and the handler never runs; anything unexpected is a 500 `server_error`, its cause
 *   logged (the filter's rules).
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc6750 RFC 6750}
 */
import { Inject, Injectable, Optional, type OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost, ModuleRef, ModulesContainer } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { Registry } from 'prom-client';
import type { AuthInfo } from '../auth/auth-info.js';
import type { BearerRequest } from '../auth/bearer-request.js';
import { RequestAuthenticator } from '../auth/request-authenticator.js';
import type { ResourceServerConfig } from '../config/resource-server.config.js';
import { BearerChallengeFilter } from './resource-server-exception.filter.js';
import {
  AUTH_INFO_PROPERTY,
  METRICS_REGISTRY,
  PROTECTED_ROUTE_METADATA,
  RESOURCE_SERVER_CONFIG,
} from './resource-server.constants.js';
import {
  ROUTE_PROTECTION_CONFIG,
  routeMethodsOf,
  routeProtectionOf,
  type RouteProtection,
} from './route-protection.js';
import { ScopeResolvers } from './scope-resolver.js';

const NO_SCOPES: readonly string[] = Object.freeze([]);

/** Attaches the authentication to the protected routes, and answers their refusals. */
@Injectable()
export class RouteAuthenticationHook implements OnApplicationBootstrap {
  // The protections of the routes attached (one object per decorated method, shared by its paths).
  readonly #attached = new WeakSet<RouteProtection>();
  readonly #resolvers: ScopeResolvers;
  readonly #answers: BearerChallengeFilter;
  #attaching = false;

  constructor(
    @Inject(HttpAdapterHost) private readonly adapterHost: HttpAdapterHost,
    @Inject(RequestAuthenticator) private readonly authenticator: RequestAuthenticator,
    @Inject(ModuleRef) moduleRef: ModuleRef,
    @Inject(ModulesContainer) private readonly modules: ModulesContainer,
    @Inject(RESOURCE_SERVER_CONFIG) config: ResourceServerConfig,
    @Optional() @Inject(METRICS_REGISTRY) registry?: Registry,
  ) {
    this.#answers = new BearerChallengeFilter(config, registry);
    this.#resolvers = new ScopeResolvers(moduleRef);
  }

  /**
   * Watches the routes Fastify registers from now on and attaches the hook to the protected ones. Called by the
   * module when Nest configures middleware: the HTTP adapter is there (in a testing module too), and no route yet.
   */
  attach(): void {
    if (this.#attaching) return;
    // Absent in a Nest application context without HTTP (a command line that imports the module): no routes.
    const fastify = this.adapterHost.httpAdapter?.getInstance<FastifyInstance>();
    if (typeof fastify?.addHook !== 'function') return;
    this.#attaching = true;
    // Every request object starts with the property (Fastify's decorator), so setting it keeps one object shape.
    if (!fastify.hasRequestDecorator(AUTH_INFO_PROPERTY)) fastify.decorateRequest(AUTH_INFO_PROPERTY, null);
    fastify.addHook('onRoute', (route: RouteOptions) => {
      const protection = (route.config as Record<string, unknown> | undefined)?.[ROUTE_PROTECTION_CONFIG] as
        RouteProtection | undefined;
      if (protection === undefined) return;
      this.#attached.add(protection);
      const before = route.preHandler === undefined ? [] : [route.preHandler].flat();
      route.preHandler = [
        ...before,
        (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) =>
          this.authenticate(request, reply, protection, done),
      ];
    });
  }

  /** Refuses to start when a protected controller method's route was not attached. */
  onApplicationBootstrap(): void {
    if (this.adapterHost.httpAdapter === undefined) return;
    for (const module of this.modules.values()) {
      for (const wrapper of module.controllers.values()) {
        const controller = wrapper.metatype as (abstract new (...args: never[]) => unknown) | null;
        if (!controller || wrapper.isAlias) continue;
        const controllerProtected = Reflect.getMetadata(PROTECTED_ROUTE_METADATA, controller) === true;
        for (const method of routeMethodsOf(controller)) {
          if (!controllerProtected && Reflect.getMetadata(PROTECTED_ROUTE_METADATA, method) !== true)
            continue;
          const protection = routeProtectionOf(method);
          if (protection === undefined || !this.#attached.has(protection)) {
            throw new Error(
              `${controller.name}.${(method as { name?: string }).name ?? '?'} is protected by a scope decorator, but its route was not given ` +
                'the authentication: the NestJS adapter of @portcullis/resource-server needs the Fastify platform, ' +
                'and a @RouteConfig() on a protected route must be written below the scope decorator (above it, ' +
                'it replaces the route configuration the decorator records)',
            );
          }
        }
      }
    }
  }

  /**
   * Calls `done` once the request is authenticated (at once for a cached verdict: no promise), or answers the
   * refusal and ends the request there.
   */
  private authenticate(
    request: FastifyRequest,
    reply: FastifyReply,
    protection: RouteProtection,
    done: (error?: Error) => void,
  ): void {
    let outcome: AuthInfo | Promise<AuthInfo>;
    try {
      outcome = this.authenticator.authenticateNow(request as unknown as BearerRequest, () =>
        this.requiredScopes(protection, request),
      );
    } catch (error) {
      this.#refuse(error, reply, done);
      return;
    }
    if (outcome instanceof Promise) {
      outcome.then(
        (auth) => this.#accepted(request, auth, done),
        (error: unknown) => this.#refuse(error, reply, done),
      );
      return;
    }
    this.#accepted(request, outcome, done);
  }

  /**
   * Answers the refusal. Should answering it fail (a header value an extension gave that Node refuses), the failure
   * goes to Fastify's error handling (a 500), never to an unhandled rejection and a request left unanswered.
   */
  #refuse(error: unknown, reply: FastifyReply, done: (error?: Error) => void): void {
    try {
      this.#answers.answer(error, reply);
    } catch (failure) {
      done(failure instanceof Error ? failure : new Error(String(failure)));
    }
  }

  #accepted(request: FastifyRequest, auth: AuthInfo, done: (error?: Error) => void): void {
    (request as unknown as Record<string, unknown>)[AUTH_INFO_PROPERTY] = auth;
    done();
  }

  private requiredScopes(
    protection: RouteProtection,
    request: FastifyRequest,
  ): readonly string[] | Promise<readonly string[]> {
    const declared = protection.scopes ?? NO_SCOPES;
    const { resolver } = protection;
    if (resolver === undefined) return declared;
    return this.#resolvers
      .get(resolver)
      .then((instance) => instance.requiredScopes(request))
      .then((resolved) => [...declared, ...resolved]);
  }
}
