import type { Type } from '@nestjs/common';
import type { ModuleRef } from '@nestjs/core';

/**
 * Decides per request which scopes an operation needs, for routes whose scope depends on the request itself (an MCP
 * endpoint: the JSON-RPC method and the tool name). It runs before the token is checked, so a missing token's 401
 * already names the scopes the operation needs (MCP 2026-07-28 "Scope Selection Strategy": clients use the `scope`
 * of the initial 401 challenge first).
 *
 * Return every scope the operation needs (MCP 2026-07-28 "Runtime Insufficient Scope Errors": all of them in one
 * challenge), `[]` for "any valid token".
 * Throwing an `OAuthError` (for example `invalid_request`) refuses the request with that error.
 *
 * @example
 * ```ts
 * @Injectable()
 * export class ReportScopes implements RequiredScopesResolver<FastifyRequest> {
 *   requiredScopes(request: FastifyRequest) {
 *     return request.method === 'GET' ? ['reports:read'] : ['reports:write'];
 *   }
 * }
 * ```
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc6750#section-3.1 RFC 6750 Section 3.1 (insufficient_scope)}
 */
export interface RequiredScopesResolver<TRequest = unknown> {
  requiredScopes(request: TRequest): readonly string[] | Promise<readonly string[]>;
}

/** A resolver class; it is taken from the app's providers when it is one, else instantiated once. */
export type RequiredScopesResolverType = Type<RequiredScopesResolver<never>>;

/**
 * The resolver instance of each resolver class, found once: the app's provider when it is one, else instantiated by
 * Nest once. Shared by the route authentication hook and `BearerAuthGuard`.
 */
export class ScopeResolvers {
  readonly #resolvers = new Map<RequiredScopesResolverType, RequiredScopesResolver<unknown>>();

  constructor(private readonly moduleRef: ModuleRef) {}

  async get(type: RequiredScopesResolverType): Promise<RequiredScopesResolver<unknown>> {
    let resolver = this.#resolvers.get(type);
    if (!resolver) {
      try {
        resolver = this.moduleRef.get(type, { strict: false }) as RequiredScopesResolver<unknown>;
      } catch {
        resolver = (await this.moduleRef.create(type)) as RequiredScopesResolver<unknown>;
      }
      this.#resolvers.set(type, resolver);
    }
    return resolver;
  }
}
