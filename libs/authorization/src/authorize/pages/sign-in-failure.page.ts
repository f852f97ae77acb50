import { escapeHtml, page } from './layout.js';

/**
 * A sign-in service elsewhere (the proxy's upstream) is slow, down or misbehaving: what happened, in plain words
 * (`what` completes "The sign-in service at <host> ..."), and that nothing was shared. Never that service's own
 * error text (RFC 9207 2.4: an unverified response's error is not shown).
 */
export function signInUnavailablePage(model: { host: string; what: string; id: string }): string {
  return page(
    'Sign-in unavailable',
    `<h1>Sign-in is not available right now</h1>
<p class="error" id="${escapeHtml(model.id)}">The sign-in service at <strong>${escapeHtml(model.host)}</strong> ${escapeHtml(model.what)}.</p>
<p>Nothing was shared with the application. Go back to it and try again in a moment.</p>`,
  );
}

/** A sign-in response that cannot be accepted: no code is minted, nothing is sent to any client. */
export function signInRejectedPage(reason: string): string {
  return page(
    'Sign-in not accepted',
    `<h1>This sign-in cannot be accepted</h1>
<p class="error" id="callback-rejected">${escapeHtml(reason)}</p>
<p>Nothing was shared with any application. Go back to the application and start again.</p>`,
  );
}
