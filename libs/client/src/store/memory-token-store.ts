import {
  matchesKey,
  newestFirst,
  sameKey,
  type StoredClient,
  type StoredServerMetadata,
  type StoredTokenSet,
  type TokenSetKey,
  type TokenStore,
} from './token-store.js';

/**
 * A {@link TokenStore} in process memory: nothing outlives the process, which is the most confidential storage
 * there is (MCP 2026-07-28 "Refresh Tokens"). The default store.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-10.4
 */
export class MemoryTokenStore implements TokenStore {
  #tokens: StoredTokenSet[] = [];
  readonly #clients = new Map<string, StoredClient>();
  readonly #servers = new Map<string, StoredServerMetadata>();

  async findTokens(resource: string): Promise<readonly StoredTokenSet[]> {
    return this.#tokens.filter((tokens) => tokens.resource === resource).sort(newestFirst);
  }

  async listTokens(): Promise<readonly StoredTokenSet[]> {
    return [...this.#tokens].sort(newestFirst);
  }

  async saveTokens(tokens: StoredTokenSet): Promise<void> {
    this.#tokens = [...this.#tokens.filter((existing) => !sameKey(existing, tokens)), { ...tokens }];
  }

  async deleteTokens(filter: Partial<TokenSetKey>): Promise<number> {
    const before = this.#tokens.length;
    this.#tokens = this.#tokens.filter((tokens) => !matchesKey(tokens, filter));
    return before - this.#tokens.length;
  }

  async getClient(issuer: string): Promise<StoredClient | undefined> {
    return this.#clients.get(issuer);
  }

  async saveClient(client: StoredClient): Promise<void> {
    this.#clients.set(client.issuer, { ...client });
  }

  async deleteClient(issuer: string): Promise<void> {
    this.#clients.delete(issuer);
  }

  async getServerMetadata(issuer: string): Promise<StoredServerMetadata | undefined> {
    return this.#servers.get(issuer);
  }

  async saveServerMetadata(metadata: StoredServerMetadata): Promise<void> {
    this.#servers.set(metadata.issuer, { ...metadata });
  }
}
