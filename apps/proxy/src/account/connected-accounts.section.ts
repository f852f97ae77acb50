import { Injectable } from '@nestjs/common';
import {
  SecurityEvents,
  type AccountSection,
  type AccountSectionOutcome,
  type AccountSectionSubmission,
  type AccountSectionView,
} from '@portcullis/authorization';
import { ConnectTickets } from '../connections/connect-ticket.service.js';
import { UpstreamConnections } from '../connections/upstream-connections.service.js';
import { UpstreamRedirect } from '../upstream/upstream-redirect.service.js';
import { UpstreamTokens } from '../upstream/upstream-token.repository.js';
import { connectedAccountsSection } from './connected-accounts.page.js';

/**
 * "Connected accounts" on the proxy's account page: the person's connections in the token vault, and Disconnect,
 * which deletes that connection's row (its sealed tokens) for that person only and records
 * `upstream_connection.removed`; the vault then has no connection for them, so a resource server's token exchange
 * for it is refused (`invalid_grant`) until they connect again. The connections the proxy offers (`CONNECTIONS`) that
 * the person has not connected, and those the provider stopped honouring, have a Connect button: a connect ticket
 * for the person signed in, and the browser goes to the provider as a connect link's would (the callback checks the
 * session is still theirs). The page has checked the form's session and CSRF token before {@link submit} runs; the
 * connection is looked up among the signed-in person's own rows, or the offered ones, only.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8693#section-2.2.2
 * @see https://modelcontextprotocol.io/specification/2025-06-18/basic/security_best_practices#token-passthrough
 */
@Injectable()
export class ConnectedAccountsSection implements AccountSection {
  readonly name = 'connections';
  readonly actions = ['disconnect', 'connect'];

  constructor(
    private readonly tokens: UpstreamTokens,
    private readonly events: SecurityEvents,
    private readonly connections: UpstreamConnections,
    private readonly tickets: ConnectTickets,
    private readonly redirect: UpstreamRedirect,
  ) {}

  async render(view: AccountSectionView): Promise<string> {
    const kept = await this.tokens.connections(view.userId);
    const all = this.connections.all();
    return connectedAccountsSection({
      connections: kept,
      offered: all
        .filter(({ name }) => !kept.some((each) => each.connection === name))
        .map(({ name, host }) => ({ connection: name, host })),
      configured: new Set(all.map(({ name }) => name)),
      disconnectAction: view.action('disconnect'),
      connectAction: view.action('connect'),
      csrfField: view.csrfField,
      ...(view.notice !== undefined ? { notice: view.notice } : {}),
    });
  }

  async submit({ userId, action, form, cookies }: AccountSectionSubmission): Promise<AccountSectionOutcome> {
    const name = form.get('connection');
    if (action === 'connect') {
      const connection = name === undefined ? undefined : this.connections.get(name);
      if (!connection) return { notice: 'not-offered' };
      const ticket = this.tickets.issue({ userId, connection: connection.name });
      return { next: await this.redirect.forConnect(cookies, ticket, connection.client) };
    }
    const connection = (await this.tokens.connections(userId)).find((each) => each.connection === name);
    if (!connection || !(await this.tokens.remove(userId, connection.connection))) {
      return { notice: 'not-connected' };
    }
    await this.events.record('upstream_connection.removed', {
      userId,
      detail: { connection: connection.connection, upstream: connection.issuer, by: 'user' },
    });
    return { notice: 'disconnected' };
  }
}
