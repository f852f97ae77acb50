import { escapeHtml, page } from '../authorize/pages/layout.js';
import type { ConnectedApp } from './account.repository.js';

/** What the account page shows to a person signed in. */
export interface AccountPageModel {
  readonly username: string;
  readonly apps: readonly ConnectedApp[];
  readonly revokeAction: string;
  readonly signOutAction: string;
  readonly csrf: string;
  /** Whether the page comes right after a revocation, to say so. */
  readonly revoked: boolean;
  /** The app's sections (`AccountSection`), rendered, in order, below the apps. */
  readonly sections?: readonly { readonly name: string; readonly html: string }[];
}

const REGISTRATION: Readonly<Record<string, string>> = {
  preregistered: 'registered by the operator',
  dynamic: 'registered itself (dynamic client registration)',
  'metadata-document': 'identified by its client ID metadata document',
};

function hostOf(clientId: string): string {
  try {
    return new URL(clientId).host;
  } catch {
    return clientId;
  }
}

/** A moment as the account page shows it (`2026-01-31 09:15:02 UTC`), or `none` when there is none. */
export function accountTime(date: Date | undefined, none = 'never'): string {
  return date
    ? date
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d+Z$/, ' UTC')
    : none;
}

/** The hidden field carrying the page's CSRF token in each of its forms. */
export function csrfField(csrf: string): string {
  return `<input type="hidden" name="csrf" value="${escapeHtml(csrf)}">`;
}

/** The app's sections, each in its own `<section>`; nothing at all without any. */
function sectionsHtml(sections: AccountPageModel['sections']): string {
  return (sections ?? [])
    .map(
      (section) =>
        `<section class="account-section" data-section="${escapeHtml(section.name)}">\n${section.html}\n</section>\n`,
    )
    .join('');
}

/** The MCP clients a person approved, each with a button that revokes it (a form, no JavaScript). */
export function accountPage(model: AccountPageModel): string {
  const apps = model.apps
    .map(
      (
        app,
      ) => `<section class="app" data-client-id="${escapeHtml(app.clientId)}" data-resource="${escapeHtml(app.resource)}">
<h2>${escapeHtml(app.clientName ?? hostOf(app.clientId))}</h2>
<dl>
<dt>Client ID</dt><dd><code>${escapeHtml(app.clientId)}</code>${/^https?:/.test(app.clientId) ? ` (${escapeHtml(hostOf(app.clientId))})` : ''}</dd>
<dt>How it was registered</dt><dd>${escapeHtml(REGISTRATION[app.registration] ?? app.registration)}</dd>
<dt>Access</dt><dd>${app.scopes.map((scope) => `<code>${escapeHtml(scope)}</code>`).join(' ')} on ${escapeHtml(app.resource)}</dd>
<dt>Approved</dt><dd>${escapeHtml(accountTime(app.approvedAt))}</dd>
<dt>Last token</dt><dd>${escapeHtml(accountTime(app.lastUsedAt, 'none under a current grant'))}</dd>
</dl>
<form method="post" action="${escapeHtml(model.revokeAction)}">
<input type="hidden" name="csrf" value="${escapeHtml(model.csrf)}">
<input type="hidden" name="client_id" value="${escapeHtml(app.clientId)}">
<input type="hidden" name="resource" value="${escapeHtml(app.resource)}">
<button type="submit" class="secondary" name="decision" value="revoke">Revoke access</button>
</form>
</section>`,
    )
    .join('\n');
  return page(
    'Connected apps',
    `<h1>Connected apps</h1>
<p>Signed in as <strong>${escapeHtml(model.username)}</strong>. These applications can act for you. Revoking one stops it from getting new tokens at once and it has to ask you again; a token it already holds may work for a few more minutes, until it expires.</p>
${model.revoked ? '<p class="warning" role="status" id="revoked">Access revoked. That application has to ask you again.</p>' : ''}
${apps || '<p class="hint" id="no-apps">You have not approved any application.</p>'}
${sectionsHtml(model.sections)}<form method="post" action="${escapeHtml(model.signOutAction)}">
<input type="hidden" name="csrf" value="${escapeHtml(model.csrf)}">
<button type="submit" class="secondary" id="sign-out">Sign out</button>
</form>`,
  );
}

/** The sign-in form of the account page, for a browser without a session. */
export function accountSignInPage(action: string, csrf: string, failed: boolean): string {
  return page(
    'Sign in',
    `<h1>Sign in</h1>
<p>to see and revoke the applications you approved</p>
${failed ? '<p class="error" role="alert">Wrong username or password.</p>' : ''}
<form method="post" action="${escapeHtml(action)}">
<input type="hidden" name="csrf" value="${escapeHtml(csrf)}">
<label for="username">Username</label>
<input type="text" id="username" name="username" autocomplete="username" autocapitalize="none" required autofocus>
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>`,
  );
}

/** A form of the account page that came without its CSRF token or session: nothing was changed. */
export function accountRefusedPage(accountPath: string): string {
  return page(
    'Connected apps',
    `<h1>Nothing was changed</h1>
<p class="error" role="alert" id="refused">This form has expired or was not sent from this page.</p>
<p><a class="button" href="${escapeHtml(accountPath)}">Back to your connected apps</a></p>`,
  );
}
