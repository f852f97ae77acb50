import { Injectable } from '@nestjs/common';
import {
  SecurityEvents,
  type AccountSection,
  type AccountSectionOutcome,
  type AccountSectionSubmission,
  type AccountSectionView,
} from '@portcullis/authorization';
import { UpstreamTokens } from '../upstream/upstream-token.repository.js';
import { connectedAccountsSection } from './connected-accounts.page.js';

/**
 * "Connected accounts" on the proxy's account page: the person's connections in the token vault, and Disconnect,
 * which deletes that connection's row (its sealed tokens) for that person only and records
 * `upstream_connection.removed`; the vault then has no connection for them, so a resource server's token exchange
 * for it is refused (`invalid_grant`) until they connect again. The page has checked the form's session and CSRF
 * token before {@link submit} runs; the connection is looked up among the signed-in person's own rows only.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8693#section-2.2.2
 * @see https://modelcontextprotocol.io/specification/2025-06-18/basic/security_best_practices#token-passthrough
 */
@Injectable()
export class ConnectedAccountsSection implements AccountSection {
  readonly name = 'connections';
  readonly actions = ['disconnect'];

  constructor(
    private readonly tokens: UpstreamTokens,
    private readonly events: SecurityEvents,
  ) {}

  async render(view: AccountSectionView): Promise<string> {
    return connectedAccountsSection({
      connections: await this.tokens.connections(view.userId),
      disconnectAction: view.action('disconnect'),
      csrfField: view.csrfField,
      ...(view.notice !== undefined ? { notice: view.notice } : {}),
    });
  }

  async submit({ userId, form }: AccountSectionSubmission): Promise<AccountSectionOutcome> {
    const name = form.get('connection');
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
