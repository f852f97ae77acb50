import { redirectDestination } from './client-display.js';
import { escapeHtml, page } from './layout.js';

/** The page shown when a request cannot be sent back to the client at all (RFC 6749 4.1.2.1: no redirect). */
export function errorPage(error: string, description: string | undefined): string {
  return page(
    'Authorization error',
    `<h1>This request cannot be completed</h1>
<p class="error"><code>${escapeHtml(error)}</code>${description ? `: ${escapeHtml(description)}` : ''}</p>
<p class="hint">The application that sent you here made an invalid request. You can close this page.</p>`,
  );
}

/**
 * The page for a request the server cannot serve for now (its database is away): nothing happened, and the same
 * request may simply be tried again.
 */
export function unavailablePage(retryAfterSeconds: string | undefined): string {
  const when = retryAfterSeconds ? ` in ${escapeHtml(retryAfterSeconds)} seconds` : ' in a moment';
  return page(
    'Temporarily unavailable',
    `<h1>Sign-in is temporarily unavailable</h1>
<p class="error" id="unavailable"><code>temporarily_unavailable</code>: the service cannot complete this request right now.</p>
<p class="hint">Nothing was changed. Reload this page${when} to try again.</p>`,
  );
}

/** The page for a pending authorization that is gone: expired, or already answered. */
export function expiredPage(): string {
  return page(
    'Request expired',
    `<h1>This sign-in request has expired</h1>
<p>Go back to the application and start again.</p>`,
  );
}

/** The page for a pending authorization opened in a browser other than the one that started it. */
export function otherBrowserPage(): string {
  return page(
    'Another browser',
    `<h1>This sign-in was started in another browser</h1>
<p id="other-browser">It can only be continued where it began. Go back to the application and start again from this browser.</p>`,
  );
}

/** What {@link returnToClientPage} shows. */
export interface ReturnToClient {
  readonly clientName: string;
  readonly error: string;
  readonly description?: string;
  /** The authorization error response at the client's redirect URI. */
  readonly location: string;
}

/**
 * An authorization that ended with an error for a client whose redirect URI is not trusted: the error, and the
 * client's answer as a link the person may follow, never an automatic redirect (RFC 9700 4.11.2).
 */
export function returnToClientPage(model: ReturnToClient): string {
  const host = redirectDestination(model.location);
  const denied = model.error === 'access_denied';
  const heading = denied
    ? `<h1>You did not allow <strong>${escapeHtml(model.clientName)}</strong></h1>
<p>Nothing was shared with it.</p>`
    : `<h1>This request cannot be completed</h1>
<p class="error" id="client-error"><code>${escapeHtml(model.error)}</code>${model.description ? `: ${escapeHtml(model.description)}` : ''}</p>`;
  return page(
    denied ? 'Access denied' : 'Authorization error',
    `${heading}
<p class="hint">If you started <strong>${escapeHtml(model.clientName)}</strong> yourself, you can return to it at <strong>${escapeHtml(host)}</strong> and tell it ${denied ? 'that you said no' : 'what went wrong'}. Otherwise, close this page.</p>
<p><a class="button" id="return-to-client" href="${escapeHtml(model.location)}">Return to ${escapeHtml(host)}</a></p>`,
  );
}
