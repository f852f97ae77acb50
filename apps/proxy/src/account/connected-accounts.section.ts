import { Injectable, Logger } from '@nestjs/common';
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
 * which asks the provider to end the grant (RFC 7009 revocation, or the provider's own API), then deletes that
 * connection's row (its sealed tokens) for that person only, whatever the provider answered, and records
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
  readonly #logger = new Logger('ConnectedAccounts');
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
      configured: new Map(all.map(({ name, host }) => [name, host])),
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
    if (!connection) return { notice: 'not-connected' };
    const revoked = await this.#revoke(userId, connection.connection);
    if (!(await this.tokens.remove(userId, connection.connection))) return { notice: 'not-connected' };
    await this.events.record('upstream_connection.removed', {
      userId,
      detail: { connection: connection.connection, upstream: connection.issuer, by: 'user', revoked },
    });
    return { notice: revoked === 'revoked' ? 'disconnected' : 'disconnected-here' };
  }

  /**
   * Asks the provider to end the grant behind the connection's tokens (its tokens are deleted here whatever it
   * answers): `revoked`; `unsupported` (the provider has no way, or the connection is no longer offered or holds no
   * tokens); `failed` (the provider refused or could not be reached in time).
   */
  async #revoke(userId: string, connection: string): Promise<'revoked' | 'unsupported' | 'failed'> {
    const stored = await this.tokens.find(userId, connection);
    const client = this.connections.get(connection)?.client;
    if (!stored?.live || !client) return 'unsupported';
    try {
      return await client.revoke(stored);
    } catch (error) {
      this.#logger.warn(
        { connection, err: error },
        'the provider did not end the grant of a disconnected connection',
      );
      return 'failed';
    }
  }
}
