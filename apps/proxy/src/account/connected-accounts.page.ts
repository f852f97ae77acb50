import { accountTime, escapeHtml } from '@portcullis/authorization';
import { providerHost } from '../connections/upstream-connections.service.js';
import { SIGN_IN_CONNECTION, type ConnectionSummary } from '../upstream/upstream-token.repository.js';

/** What the "Connected accounts" section of the account page shows. */
export interface ConnectedAccountsModel {
  /** The person's connections in the vault. */
  readonly connections: readonly ConnectionSummary[];
  /** The connections the proxy offers that the person has not connected (`CONNECTIONS`), with their providers' hosts. */
  readonly offered: readonly { readonly connection: string; readonly host: string }[];
  /**
   * Every connection the proxy offers (the sign-in provider's among them), those a person can connect again, each with
   * its provider's host now.
   */
  readonly configured: ReadonlyMap<string, string>;
  /** Where each Disconnect and Connect form posts, and the page's CSRF field for them (already escaped). */
  readonly disconnectAction: string;
  readonly connectAction: string;
  readonly csrfField: string;
  /** The notice of the last disconnect (a key of {@link NOTICES}), when the page comes right after one. */
  readonly notice?: string;
}

/** The section's notices: fixed texts, so a link cannot put its own words on the page. */
export const NOTICES: Readonly<Record<string, { readonly role: 'status' | 'alert'; readonly text: string }>> =
  {
    disconnected: {
      role: 'status',
      text: 'Disconnected. Its tokens are deleted here and the provider ended the access it gave; an application that needs it will have to ask you to connect it again.',
    },
    'disconnected-here': {
      role: 'status',
      text: 'Disconnected here: its tokens are deleted. The provider could not be asked to end the access it gave; you can remove this service from the apps of your account there.',
    },
    'not-connected': {
      role: 'alert',
      text: 'You have no such connection: nothing was disconnected.',
    },
    'not-offered': {
      role: 'alert',
      text: 'This service is not offered here: nothing was connected.',
    },
  };

/**
 * The upstream accounts whose tokens the proxy keeps for a person (so that the MCP servers they approved call those
 * APIs as them, RFC 8693), each with its scopes, last use, whether it must be connected again, and a Disconnect
 * button: a form posting the page's CSRF token, no script.
 */
export function connectedAccountsSection(model: ConnectedAccountsModel): string {
  // Own keys only: `constructor` and the like are names too.
  const notice =
    model.notice !== undefined && Object.hasOwn(NOTICES, model.notice) ? NOTICES[model.notice] : undefined;
  const rows = model.connections
    .map((connection) => {
      const host = providerHost(connection.issuer);
      const state = connection.providerChanged
        ? `<strong>Needs reconnecting</strong>: this connection now uses another provider than ${escapeHtml(host)}`
        : connection.reconnectRequiredAt
          ? `<strong>Needs reconnecting</strong>: the provider stopped honouring it on ${escapeHtml(accountTime(connection.reconnectRequiredAt))}`
          : connection.hasTokens
            ? 'Connected'
            : '<strong>Needs reconnecting</strong>';
      const scopes =
        connection.scopes.length > 0
          ? connection.scopes.map((scope) => `<code>${escapeHtml(scope)}</code>`).join(' ')
          : 'none named';
      return `<div class="connection" data-connection="${escapeHtml(connection.connection)}">
<h3><code>${escapeHtml(connection.connection)}</code> at ${escapeHtml(host)}</h3>
<dl>
<dt>Scopes</dt><dd>${scopes}</dd>
<dt>Last used</dt><dd>${escapeHtml(accountTime(connection.lastUsedAt))}</dd>
<dt>Status</dt><dd class="connection-state">${state}</dd>
</dl>
${connection.connection === SIGN_IN_CONNECTION ? `<p class="hint">You sign in with this account: disconnecting it deletes only the tokens kept here; you can still sign in, and your next sign-in keeps new ones.</p>\n` : ''}${connection.hasTokens || !model.configured.has(connection.connection) ? '' : connectForm(model, connection.connection, `Reconnect ${model.configured.get(connection.connection) ?? host}`)}<form method="post" action="${escapeHtml(model.disconnectAction)}">
${model.csrfField}
<input type="hidden" name="connection" value="${escapeHtml(connection.connection)}">
<button type="submit" class="secondary" name="decision" value="disconnect">Disconnect</button>
</form>
</div>`;
    })
    .concat(
      model.offered.map(
        ({ connection, host }) => `<div class="connection" data-connection="${escapeHtml(connection)}">
<h3><code>${escapeHtml(connection)}</code> at ${escapeHtml(host)}</h3>
<p class="connection-state">Not connected: the MCP servers you use cannot call ${escapeHtml(host)} as you.</p>
${connectForm(model, connection, `Connect ${host}`)}</div>`,
      ),
    )
    .join('\n');
  return `<h2>Connected accounts</h2>
<p>The proxy keeps tokens of these accounts so that the MCP servers you use can call their APIs as you. Disconnecting one deletes its tokens.</p>
${notice ? `<p class="${notice.role === 'status' ? 'warning' : 'error'}" role="${notice.role}" id="connections-notice">${escapeHtml(notice.text)}</p>\n` : ''}${rows || '<p class="hint" id="no-connections">No account is connected.</p>'}`;
}

/** A Connect (or Reconnect) button: a form posting the connection's name with the page's CSRF token. */
function connectForm(model: ConnectedAccountsModel, connection: string, label: string): string {
  return `<form method="post" action="${escapeHtml(model.connectAction)}">
${model.csrfField}
<input type="hidden" name="connection" value="${escapeHtml(connection)}">
<button type="submit" name="decision" value="connect">${escapeHtml(label)}</button>
</form>
`;
}
