import { escapeHtml, page, sendPage } from '@portcullis/authorization';
import type { FastifyReply } from 'fastify';
import type { UpstreamFailure } from './upstream.error.js';

const STATUS: Readonly<Record<UpstreamFailure, number>> = {
  timeout: 504,
  unreachable: 502,
  rejected: 502,
  denied: 403,
};

/**
 * The page for an upstream that is slow, down or misbehaving: what happened, in plain words, and that nothing was
 * shared. Never the upstream's own error text (RFC 9207 2.4: an unverified response's error is not shown).
 */
export function sendUpstreamErrorPage(
  reply: FastifyReply,
  failure: UpstreamFailure,
  upstreamHost: string,
  timeoutMs: number,
): void {
  const what: Record<UpstreamFailure, string> = {
    timeout: `did not answer within ${formatSeconds(timeoutMs)}`,
    unreachable: 'could not be reached',
    rejected: 'gave an answer that could not be verified',
    denied: 'did not sign you in',
  };
  sendPage(
    reply,
    STATUS[failure],
    page(
      'Sign-in unavailable',
      `<h1>Sign-in is not available right now</h1>
<p class="error" id="upstream-${failure}">The sign-in service at <strong>${escapeHtml(upstreamHost)}</strong> ${escapeHtml(what[failure])}.</p>
<p>Nothing was shared with the application. Go back to it and try again in a moment.</p>`,
    ),
  );
}

/** A callback that cannot be accepted: no code is minted, nothing is sent to any client. */
export function sendCallbackRejectedPage(reply: FastifyReply, status: number, reason: string): void {
  sendPage(
    reply,
    status,
    page(
      'Sign-in not accepted',
      `<h1>This sign-in cannot be accepted</h1>
<p class="error" id="callback-rejected">${escapeHtml(reason)}</p>
<p>Nothing was shared with any application. Go back to the application and start again.</p>`,
    ),
  );
}

/** The page for a pending request that is gone (expired, or already answered). */
export function expiredPage(): string {
  return page(
    'Request expired',
    `<h1>This sign-in request has expired</h1>
<p>Go back to the application and start again.</p>`,
  );
}

function formatSeconds(ms: number): string {
  const seconds = ms / 1000;
  return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} second${seconds === 1 ? '' : 's'}`;
}
