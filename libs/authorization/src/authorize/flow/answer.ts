import type { FastifyReply } from 'fastify';
import type { CookieExchange } from '../../http/cookies.js';
import { PAGE_CSP } from '../pages/layout.js';
import type { Decision } from './interaction-step.js';

/**
 * The one place the interaction becomes HTTP: a decision (a page or a redirect) with the cookies the steps set.
 * `continue`, `ask` and `error` never reach here: the interaction service resolves them first.
 */
export function answer(reply: FastifyReply, decision: Decision, cookies?: CookieExchange): void {
  if (cookies && cookies.outgoing.length > 0) {
    const existing = reply.getHeader('set-cookie');
    const list =
      existing === undefined ? [] : Array.isArray(existing) ? existing.map(String) : [String(existing)];
    reply.header('set-cookie', [...list, ...cookies.outgoing]);
  }
  switch (decision.kind) {
    case 'page':
      return sendPage(reply, decision.status, decision.html);
    case 'redirect':
      return seeOther(reply, decision.location);
    default:
      throw new Error(`an unresolved interaction decision reached HTTP: ${decision.kind}`);
  }
}

/** Sends a page with the headers every interaction page carries (RFC 9700 4.16: no framing; no caching). */
export function sendPage(reply: FastifyReply, status: number, html: string): void {
  reply
    .status(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('content-security-policy', PAGE_CSP)
    .header('x-frame-options', 'DENY')
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .send(html);
}

/** 303 See Other: after a POST the browser follows with a GET (RFC 9110 15.4.4), never re-posting the form. */
export function seeOther(reply: FastifyReply, location: string): void {
  reply.status(303).header('location', location).header('cache-control', 'no-store').send();
}
