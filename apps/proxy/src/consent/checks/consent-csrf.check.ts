// Rules kept: RFC 9700 4.7 and RFC 6749 10.12 (CSRF): a consent POST counts only with the CSRF token of this
// browser (its browser-binding cookie) for this pending authorization; a missing token, or one from another
// browser or another request, is refused with 403 before anything is read, written or redirected. The token is
// the one `/login` rendered (HMAC of the binding and the handle), compared in constant time.
import { SessionService } from '@portcullis/authorization';
import type { FastifyRequest } from 'fastify';

/** Whether the submitted `csrf` is this browser's token for pending authorization `handle`. */
export function consentCsrfValid(
  sessions: SessionService,
  request: FastifyRequest,
  handle: string,
  submitted: string | undefined,
): boolean {
  const binding = sessions.existingBrowserBinding(request);
  return (
    binding !== undefined && SessionService.tokensMatch(sessions.loginCsrfToken(binding, handle), submitted)
  );
}
