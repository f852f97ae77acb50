import {
  escapeHtml,
  hostOf,
  page,
  type OAuthClient,
  type ValidatedAuthorization,
} from '@portcullis/authorization';
import type { ClientStanding } from './client-trust.js';

/** What each scope means, for people. */
const SCOPE_TEXT: Readonly<Record<string, string>> = {
  openid: 'Know who you are',
  offline_access: 'Keep access while you are away (refresh tokens)',
};

/** Everything the consent page shows. */
export interface ConsentPageModel {
  readonly client: OAuthClient;
  readonly standing: ClientStanding;
  readonly pending: ValidatedAuthorization;
  readonly resourceName: string;
  /** Where the user will sign in next: the upstream's host. */
  readonly upstreamHost: string;
  readonly handle: string;
  readonly csrf: string;
  readonly action: string;
}

/**
 * The proxy's consent page, shown before the browser goes upstream: who asks (client name, client ID host,
 * redirect host), for what (resource, scopes), warnings for clients that registered themselves, and where the user
 * will sign in. A plain form, no script; `sendPage` adds the CSP and framing headers.
 *
 * @see https://modelcontextprotocol.io/specification/2025-06-18/basic/security_best_practices#confused-deputy-problem
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-10.2
 */
export function consentPage(model: ConsentPageModel): string {
  const { client, standing, pending } = model;
  const clientName = client.clientName ?? client.clientId;
  const scopes = pending.scopes
    .map(
      (scope) =>
        `<li><label><input type="checkbox" name="scope" value="${escapeHtml(scope)}" checked> <code>${escapeHtml(
          scope,
        )}</code>${SCOPE_TEXT[scope] ? ` ${escapeHtml(SCOPE_TEXT[scope])}` : ''}</label></li>`,
    )
    .join('\n');
  const warnings = [
    standing.recentlyRegistered
      ? '<p class="warning" id="warning-recent">This application registered itself moments ago. Anyone can do that: approve it only if you just started it yourself.</p>'
      : '',
    standing.localOnly
      ? '<p class="warning" id="warning-local">This application only runs on your own computer (all its redirect addresses are local). Approve it only if you started it yourself.</p>'
      : '',
    standing.origin === 'metadata-document'
      ? `<p class="warning" id="warning-document">This application describes itself with a document at <strong>${escapeHtml(hostOf(client.clientId) ?? client.clientId)}</strong>. Approve it only if you trust that site.</p>`
      : '',
  ].join('');
  return page(
    'Allow access?',
    `<h1>Allow <strong>${escapeHtml(clientName)}</strong> to access ${escapeHtml(model.resourceName)}?</h1>
${warnings}
<dl>
<dt>Application</dt><dd>${escapeHtml(clientName)}</dd>
<dt>Client ID host</dt><dd>${escapeHtml(hostOf(client.clientId) ?? `${client.clientId} (registered here)`)}</dd>
<dt>Will return you to</dt><dd>${escapeHtml(hostOf(pending.redirectUri) ?? pending.redirectUri)}</dd>
<dt>Resource</dt><dd>${escapeHtml(pending.resource)}</dd>
</dl>
<form method="post" action="${escapeHtml(model.action)}">
<input type="hidden" name="interaction" value="${escapeHtml(model.handle)}">
<input type="hidden" name="csrf" value="${escapeHtml(model.csrf)}">
<p>It asks to:</p>
<ul class="scopes">
${scopes}
</ul>
<p class="hint">If you allow it, you will sign in at <strong>${escapeHtml(model.upstreamHost)}</strong> next.</p>
<button type="submit" name="decision" value="approve">Allow</button>
<button type="submit" name="decision" value="deny" class="secondary">Deny</button>
</form>`,
  );
}

/**
 * After a denial for a client the proxy does not trust: the answer the client is owed, as a link the user may
 * follow, not a redirect (RFC 9700 4.11.2).
 */
export function deniedPage(clientName: string, returnUrl: string): string {
  return page(
    'Access denied',
    `<h1>You did not allow <strong>${escapeHtml(clientName)}</strong></h1>
<p>Nothing was shared with it and you were not signed in anywhere.</p>
<p class="hint">If you started this application yourself, you can <a href="${escapeHtml(returnUrl)}">tell it that you said no</a>. Otherwise, close this page.</p>`,
  );
}
