import { escapeHtml, page } from '@portcullis/authorization';

/** What the connect page shows: where it posts, and the hidden fields the post carries. */
export interface ConnectPageModel {
  /** The provider's host, as the person knows it (`github.com`). */
  readonly host: string;
  /** Whether the person had this connection before (it ended), or connects it for the first time. */
  readonly again: boolean;
  /** The name of the application whose request needs the connection, when it has one. */
  readonly app?: string;
  readonly action: string;
  readonly ticket: string;
  readonly csrf: string;
}

/**
 * The page a connect link opens: one button, a form whose POST (with the page's CSRF token) sends the browser to
 * sign in at the provider; no script, and nothing happens on the GET alone.
 */
export function connectPage(model: ConnectPageModel): string {
  const host = escapeHtml(model.host);
  const who = model.app ? `<strong>${escapeHtml(model.app)}</strong>` : 'An application';
  const verb = model.again ? 'Reconnect' : 'Connect';
  const why = model.again
    ? `<p>${who} needs to act for you at <strong>${host}</strong>, and your connection there has ended.</p>
<p>Sign in at <strong>${host}</strong> with the account you used before to connect it again.</p>`
    : `<p>${who} needs to act for you at <strong>${host}</strong>.</p>
<p>Sign in at <strong>${host}</strong> and allow this service to act for you there. You can disconnect it at any time from your account page.</p>`;
  return page(
    `${verb} ${model.host}`,
    `<h1>${verb} ${host}</h1>
${why}
<form method="post" action="${escapeHtml(model.action)}">
<input type="hidden" name="ticket" value="${escapeHtml(model.ticket)}">
<input type="hidden" name="csrf" value="${escapeHtml(model.csrf)}">
<button type="submit" id="reconnect">${verb} ${host}</button>
</form>
<p class="hint">This link works once, and only for a short while.</p>`,
  );
}

/** A connect link that cannot be used: why (a fixed text, never one from the request), and that nothing changed. */
export function connectRefusedPage(reason: string): string {
  return page(
    'Link not valid',
    `<h1>This link cannot be used</h1>
<p class="error" id="connect-refused">${escapeHtml(reason)}</p>
<p>Nothing was changed. Go back to the application and ask it again; it will give you a new link.</p>`,
  );
}

/** The connection is live again: back to the application, by the person's own hand (no redirect). */
export function connectedPage(model: { readonly host: string; readonly app?: string }): string {
  const app = model.app ? `<strong>${escapeHtml(model.app)}</strong>` : 'the application';
  return page(
    'Connected',
    `<h1>Connected</h1>
<p id="connected">Your <strong>${escapeHtml(model.host)}</strong> account is connected. You can go back to ${app}.</p>
<p class="hint">You can close this page.</p>`,
  );
}
