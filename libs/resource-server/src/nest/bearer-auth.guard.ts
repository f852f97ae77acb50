/**
 * The guard of every protected route: the core's request authentication (`auth/request-authenticator.ts`, the
 * rules and their order) with the route's scopes, from `@RequireScopes` or its `@ResolveScopes` resolver. A refusal
 * leaves as a `BearerChallengeError`, which the route's `BearerChallengeFilter` answers; the request then carries
 * the {@link AuthInfo} (see `CurrentAuth`), never the token.
 */
import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { ModuleRef, Reflector } from '@nestjs/core';
import type { AuthInfo } from '../auth/auth-info.js';
import type { BearerRequest } from '../auth/bearer-request.js';
import { RequestAuthenticator } from '../auth/request-authenticator.js';
import {
  AUTH_INFO_PROPERTY,
  REQUIRED_SCOPES_METADATA,
  SCOPE_RESOLVER_METADATA,
} from './resource-server.constants.js';
import { ScopeResolvers, type RequiredScopesResolverType } from './scope-resolver.js';

/**
 * Bearer authentication and scope enforcement for protected routes; applied by `@Protected()`,
 * `@RequireScopes(...)` and `@ResolveScopes(...)`.
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc6750 RFC 6750}
 * @see {@link https://www.rfc-editor.org/rfc/rfc9728#section-5.1 RFC 9728 Section 5.1}
 */
@Injectable()
export class BearerAuthGuard implements CanActivate {
  readonly #resolvers: ScopeResolvers;

  constructor(
    @Inject(RequestAuthenticator) private readonly authenticator: RequestAuthenticator,
    @Inject(Reflector) private readonly reflector: Reflector,
    @Inject(ModuleRef) moduleRef: ModuleRef,
  ) {
    this.#resolvers = new ScopeResolvers(moduleRef);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<BearerRequest & Record<string, unknown>>();
    const auth: AuthInfo = await this.authenticator.authenticate(request, () =>
      this.requiredScopes(context, request),
    );
    request[AUTH_INFO_PROPERTY] = auth;
    return true;
  }

  private async requiredScopes(context: ExecutionContext, request: BearerRequest): Promise<string[]> {
    const targets = [context.getHandler(), context.getClass()];
    const declared = this.reflector.getAllAndOverride<readonly string[] | undefined>(
      REQUIRED_SCOPES_METADATA,
      targets,
    );
    const resolverType = this.reflector.getAllAndOverride<RequiredScopesResolverType | undefined>(
      SCOPE_RESOLVER_METADATA,
      targets,
    );
    const resolved = resolverType
      ? await (await this.#resolvers.get(resolverType)).requiredScopes(request)
      : [];
    return [...(declared ?? []), ...resolved];
  }
}
