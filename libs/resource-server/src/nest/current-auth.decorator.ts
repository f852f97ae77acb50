import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { AUTH_INFO_PROPERTY } from './resource-server.constants.js';
import type { AuthInfo } from '../auth/auth-info.js';

/**
 * The {@link AuthInfo} the route's authentication (or `BearerAuthGuard`) attached to `request`.
 *
 * @throws Error when the request did not pass the authentication: a handler must never run unauthenticated because
 *   a decorator was forgotten (fail closed; the filter answers 500).
 * @see {@link https://www.rfc-editor.org/rfc/rfc6750#section-2.1 RFC 6750 Section 2.1}
 */
export function authInfoOf(request: object): AuthInfo {
  const auth = (request as Record<string, unknown>)[AUTH_INFO_PROPERTY] as AuthInfo | undefined;
  if (!auth) throw new Error('no AuthInfo on the request: the route is not protected by the bearer guard');
  return auth;
}

/**
 * Parameter decorator: the request's {@link AuthInfo} (subject, client, scopes, audience, expiry; never the
 * token).
 *
 * @example
 * ```ts
 * @Get() @RequireScopes('notes:read') list(@CurrentAuth() auth: AuthInfo) { return this.notes.list(auth.subject); }
 * ```
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc9068#section-2.2 RFC 9068 Section 2.2}
 */
export const CurrentAuth = createParamDecorator((_data: unknown, context: ExecutionContext): AuthInfo =>
  authInfoOf(context.switchToHttp().getRequest<object>()),
);
