import { redirectDestination } from './client-display.js';
import { escapeHtml, page } from './layout.js';

/** What the confirmation shows. */
export interface ContinuePageModel {
  readonly clientName: string;
  readonly redirectUri: string;
  readonly action: string;
  readonly interaction: string;
  readonly csrf: string;
}

/**
 * The one-click confirmation before a code goes to a public client on a loopback or private-use redirect URI that
 * the person approved before: any program on this computer can listen on a loopback port, or claim a URI scheme,
 * and open an authorization URL with its own PKCE pair, so the code is released only after a click in this browser
 * (RFC 8252 8.6).
 */
export function continuePage(model: ContinuePageModel): string {
  const host = redirectDestination(model.redirectUri);
  return page(
    'Continue?',
    `<h1>Continue to <strong>${escapeHtml(model.clientName)}</strong>?</h1>
<p id="confirm-continue">You allowed this application before. It is waiting on your own computer, at <strong>${escapeHtml(host)}</strong>.</p>
<p class="hint">Continue only if you started it yourself just now.</p>
<form method="post" action="${escapeHtml(model.action)}">
<input type="hidden" name="interaction" value="${escapeHtml(model.interaction)}">
<input type="hidden" name="csrf" value="${escapeHtml(model.csrf)}">
<button type="submit" name="decision" value="approve">Continue</button>
<button type="submit" name="decision" value="deny" class="secondary">Cancel</button>
</form>`,
  );
}
