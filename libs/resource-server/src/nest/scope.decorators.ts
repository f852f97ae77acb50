import { applyDecorators, SetMetadata, UseFilters } from '@nestjs/common';
import { isScopeToken } from '@portcullis/protocol';
import {
  PROTECTED_ROUTE_METADATA,
  REQUIRED_SCOPES_METADATA,
  SCOPE_RESOLVER_METADATA,
} from './resource-server.constants.js';
import { BearerChallengeFilter } from './resource-server-exception.filter.js';
import { ProtectRoute, type RouteProtection } from './route-protection.js';
import type { RequiredScopesResolverType } from './scope-resolver.js';

// The route's protection, which the module's authentication hook attaches to the route (route-authentication.hook.ts);
// the mark its boot check looks for; and the filter that answers, on this route only, a refusal its handler throws
// (the host app's other routes, and its own errors on this one, keep the host's error handling). The metadata the
// BearerAuthGuard reads is set too, for an app that applies that guard itself.
const GUARDED = (protection: RouteProtection): MethodDecorator & ClassDecorator =>
  applyDecorators(
    SetMetadata(PROTECTED_ROUTE_METADATA, true),
    ProtectRoute(protection),
    UseFilters(BearerChallengeFilter),
  );

/**
 * Protects a route (or every route of a controller) with bearer authentication: any valid access token for this
 * resource is enough.
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc6750#section-2.1 RFC 6750 Section 2.1}
 */
export function Protected(): MethodDecorator & ClassDecorator {
  return GUARDED({});
}

/**
 * Protects a route with bearer authentication and requires every listed scope; a broader scope of the configured
 * hierarchy satisfies a narrower one. A token without them gets a 403 `insufficient_scope` challenge naming all of
 * them.
 *
 * @example
 * ```ts
 * @Post('notes') @RequireScopes('notes:write') create(@CurrentAuth() auth: AuthInfo) { ... }
 * ```
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc6750#section-3.1 RFC 6750 Section 3.1}
 */
export function RequireScopes(...scopes: [string, ...string[]]): MethodDecorator & ClassDecorator {
  for (const scope of scopes) {
    if (!isScopeToken(scope)) throw new TypeError(`RequireScopes: "${scope}" is not an RFC 6749 scope-token`);
  }
  const declared = Object.freeze([...scopes]);
  return applyDecorators(SetMetadata(REQUIRED_SCOPES_METADATA, declared), GUARDED({ scopes: declared }));
}

/**
 * Protects a route with bearer authentication and lets a resolver decide per request which scopes it needs.
 *
 * @see {@link RequiredScopesResolver}
 * @see {@link https://www.rfc-editor.org/rfc/rfc6750#section-3.1 RFC 6750 Section 3.1}
 */
export function ResolveScopes(resolver: RequiredScopesResolverType): MethodDecorator & ClassDecorator {
  return applyDecorators(SetMetadata(SCOPE_RESOLVER_METADATA, resolver), GUARDED({ resolver }));
}
