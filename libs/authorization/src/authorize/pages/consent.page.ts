import { uriScheme } from '@portcullis/metadata';
import type { OAuthClient } from '../../clients/client.js';
import { hostOf, isLocalRedirect, isPrivateUseRedirect, redirectDestination } from './client-display.js';
import { escapeHtml, page } from './layout.js';

/** What each scope means, for people. */
const SCOPE_TEXT: Readonly<Record<string, string>> = {
  openid: 'Know who you are',
  profile: 'See your name and username',
  email: 'See your email address',
  offline_access: 'Keep access while you are away (refresh tokens)',
};

/** A dynamically registered client is "recently registered" on the consent page for this long. */
export const RECENT_CLIENT_AGE_MS = 24 * 3600 * 1000;

/** Everything a consent page shows. */
export interface ConsentPageModel {
  readonly client: OAuthClient;
  readonly redirectUri: string;
  readonly resource: string;
  readonly resourceName: string;
  readonly scopes: readonly string[];
  readonly action: string;
  readonly interaction: string;
  readonly csrf: string;
  /** Where the person signs in next, when that happens after this page (the proxy's upstream). */
  readonly signInHost?: string;
}

/**
 * The consent page: who asks (client name, client ID host, redirect host), for what (resource, scopes), with
 * warnings for clients nobody vouched for (registered moments ago, only local redirect URIs, described by a
 * document on someone's web site) and for a code that leaves the browser through a private-use URI scheme, to
 * whichever application on this device claims it (RFC 8252 8.6). A plain form, no script; the interaction
 * controller adds the CSP and framing headers.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-10.2 (client impersonation: show the client's identity)
 * @see https://www.rfc-editor.org/rfc/rfc9700#section-4.16 (clickjacking)
 * @see https://modelcontextprotocol.io/specification/2025-06-18/basic/security_best_practices#confused-deputy-problem
 */
export function consentPage(model: ConsentPageModel): string {
  const { client } = model;
  const clientName = client.clientName ?? client.clientId;
  const scopes = model.scopes
    .map(
      (scope) =>
        `<li><label><input type="checkbox" name="scope" value="${escapeHtml(scope)}" checked> <code>${escapeHtml(
          scope,
        )}</code>${SCOPE_TEXT[scope] ? ` ${escapeHtml(SCOPE_TEXT[scope])}` : ''}</label></li>`,
    )
    .join('\n');
  const recent =
    client.origin === 'dynamic' &&
    (!client.createdAt || Date.now() - client.createdAt.getTime() < RECENT_CLIENT_AGE_MS);
  const localOnly = client.redirectUris.length > 0 && client.redirectUris.every(isLocalRedirect);
  const warnings = [
    recent
      ? '<p class="warning" id="warning-recent">This application registered itself moments ago. Anyone can do that: approve it only if you just started it yourself.</p>'
      : '',
    localOnly
      ? '<p class="warning" id="warning-local">This application only runs on your own computer (all its redirect addresses are local). Approve it only if you started it yourself.</p>'
      : '',
    isPrivateUseRedirect(model.redirectUri)
      ? `<p class="warning" id="warning-private-use">The answer goes to an application on this device through a <strong>${escapeHtml(`${uriScheme(model.redirectUri)}:`)}</strong> link, not to a web site. Any installed application can claim such links: approve only if you just started this application yourself.</p>`
      : '',
    client.origin === 'metadata-document'
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
<dt>Will return you to</dt><dd>${escapeHtml(redirectDestination(model.redirectUri))}</dd>
<dt>Resource</dt><dd>${escapeHtml(model.resource)}</dd>
</dl>
<form method="post" action="${escapeHtml(model.action)}">
<input type="hidden" name="interaction" value="${escapeHtml(model.interaction)}">
<input type="hidden" name="csrf" value="${escapeHtml(model.csrf)}">
<p>It asks to:</p>
<ul class="scopes">
${scopes}
</ul>
${model.signInHost ? `<p class="hint">If you allow it, you will sign in at <strong>${escapeHtml(model.signInHost)}</strong> next.</p>\n` : ''}<button type="submit" name="decision" value="approve">Allow</button>
<button type="submit" name="decision" value="deny" class="secondary">Deny</button>
</form>`,
  );
}
