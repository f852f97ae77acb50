// Rules kept: CIMD draft 4.4 and MCP 2026-07-28 "Client ID Metadata Documents": documents are cached for the
// lifetime their loader gives, failures and invalid documents never (a rejected load stores nothing), and (our
// choice) concurrent lookups of one URL share one in-flight load. The cache holds a bounded number of entries,
// the least recently used leaving first, so clients naming many URLs cannot grow it without limit.

/**
 * A loaded value and how long it may be reused.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9111#section-4.2
 */
export interface Cacheable<V> {
  readonly value: V;
  readonly lifetimeSeconds: number;
}

/**
 * An in-memory cache of loaded values with per-entry lifetimes, a size bound, and coalesced loads.
 *
 * @see https://datatracker.ietf.org/doc/html/draft-ietf-oauth-client-id-metadata-document-00#section-4.4
 */
export class MetadataDocumentCache<V> {
  readonly #entries = new Map<string, { value: V; expiresAt: number }>();
  readonly #loading = new Map<string, Promise<V>>();

  constructor(
    private readonly maxEntries: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** The cached value, or the result of `load` (shared with every concurrent caller for the same key). */
  get(key: string, load: () => Promise<Cacheable<V>>): Promise<V> {
    const entry = this.#entries.get(key);
    if (entry) {
      this.#entries.delete(key);
      if (entry.expiresAt > this.now()) {
        this.#entries.set(key, entry);
        return Promise.resolve(entry.value);
      }
    }
    const pending = this.#loading.get(key);
    if (pending) return pending;
    const loading = this.#load(key, load);
    this.#loading.set(key, loading);
    return loading;
  }

  /** Drops the cached value of `key`, so that the next lookup loads it again (a load under way is kept). */
  evict(key: string): void {
    this.#entries.delete(key);
  }

  /** How many values are cached (expired ones included until they are looked up or pushed out). */
  get size(): number {
    return this.#entries.size;
  }

  async #load(key: string, load: () => Promise<Cacheable<V>>): Promise<V> {
    try {
      const { value, lifetimeSeconds } = await load();
      if (lifetimeSeconds > 0) {
        this.#entries.set(key, { value, expiresAt: this.now() + lifetimeSeconds * 1000 });
        for (const oldest of this.#entries.keys()) {
          if (this.#entries.size <= this.maxEntries) break;
          this.#entries.delete(oldest);
        }
      }
      return value;
    } finally {
      this.#loading.delete(key);
    }
  }
}
