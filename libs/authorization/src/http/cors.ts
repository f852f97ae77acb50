import type { FastifyReply } from 'fastify';

/**
 * Lets browser-based clients read a public document or call the token endpoint from any origin. No credentials
 * are involved (`Access-Control-Allow-Credentials` is never sent), so `*` exposes nothing a cookie protects.
 * Never used on `/authorize`, which is navigated to, not fetched.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8414#section-3 (metadata is public)
 * @see https://fetch.spec.whatwg.org/#http-cors-protocol
 */
export function allowCors(reply: FastifyReply): void {
  reply.header('access-control-allow-origin', '*');
  reply.header('access-control-expose-headers', 'WWW-Authenticate, X-Request-Id, DPoP-Nonce');
}

/** Answers a CORS preflight for a POST endpoint taking a form body and client authentication. */
export function answerPreflight(reply: FastifyReply, methods: string): void {
  allowCors(reply);
  reply.header('access-control-allow-methods', methods);
  reply.header('access-control-allow-headers', 'Authorization, Content-Type, DPoP');
  reply.header('access-control-max-age', '600');
  reply.status(204).send();
}
