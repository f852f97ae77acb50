/**
 * Authorization server metadata, fetched once and reused while fresh, in this process and across processes.
 *
 * Rules kept here:
 * - RFC 8414 Section 3 with RFC 9111 Section 4.2: a fetched document is reused for its freshness lifetime (its
 *   `Cache-Control`, else an hour, at most a day; see `discoverAuthorizationServer`), so a second run of a command
 *   line against a known server makes no discovery request; a stale one is fetched again.
 * - Every check of a fetched document (issuer, S256, safe endpoints) applies to a kept document each time it is read back,
 *   as to a fetched one: a document the store holds is never trusted more than one fetched now.
 * - Within one process a document is reused for at least a minute even when the server says `no-store`, which only
 *   keeps it from the token store: one authorization must not fetch the same document several times.
 */
import type { JsonObject } from '@portcullis/extensions';
import type { Revision } from '@portcullis/revisions';
import type { FetchLike } from '../http/http.js';
import type { TokenStore } from '../store/token-store.js';
import {
  checkAuthorizationServerMetadata,
  discoverAuthorizationServer,
  type DiscoveredAuthorizationServer,
} from './authorization-server.discovery.js';

/** The least time a document is reused within the process. */
const IN_PROCESS_MIN_MS = 60_000;

interface Entry {
  readonly server: Promise<DiscoveredAuthorizationServer>;
  /** Until when the entry is used (ms since the epoch); the discovery in flight is used until it settles. */
  freshUntil: number;
}

/**
 * Discovery of authorization servers for one client: the process's documents, then the store's fresh ones, then the
 * network.
 */
export class AuthorizationServerCache {
  readonly #entries = new Map<string, Entry>();

  constructor(
    private readonly input: {
      readonly revision: Revision;
      readonly fetch: FetchLike;
      readonly store: TokenStore;
      readonly now: () => number;
    },
  ) {}

  /** The checked metadata of `issuer`; throws as `discoverAuthorizationServer` does. */
  discover(issuer: string): Promise<DiscoveredAuthorizationServer> {
    const existing = this.#entries.get(issuer);
    if (existing !== undefined && this.input.now() < existing.freshUntil) return existing.server;
    const entry: Entry = { server: this.#load(issuer), freshUntil: Number.POSITIVE_INFINITY };
    this.#entries.set(issuer, entry);
    entry.server.then(
      (server) => {
        entry.freshUntil = this.input.now() + Math.max(IN_PROCESS_MIN_MS, (server.cacheSeconds ?? 0) * 1000);
      },
      // A failed discovery is retried next time, not remembered.
      () => {
        if (this.#entries.get(issuer) === entry) this.#entries.delete(issuer);
      },
    );
    return entry.server;
  }

  async #load(issuer: string): Promise<DiscoveredAuthorizationServer> {
    const { store, revision, now } = this.input;
    const kept = await store.getServerMetadata?.(issuer).catch(() => undefined);
    if (kept !== undefined && now() < kept.freshUntil) {
      try {
        const server = checkAuthorizationServerMetadata(kept.document, { url: kept.url, issuer });
        return { ...server, cacheSeconds: Math.floor((kept.freshUntil - now()) / 1000) };
      } catch {
        // A kept document the checks no longer accept (the client was upgraded since): fetched again below.
      }
    }
    const server = await discoverAuthorizationServer({ issuer, revision, fetch: this.input.fetch });
    const seconds = server.cacheSeconds ?? 0;
    if (seconds > 0 && store.saveServerMetadata !== undefined) {
      const fetchedAt = now();
      // Best effort: a store that cannot keep the document costs the next run one request, never this one.
      await store
        .saveServerMetadata({
          issuer,
          url: server.url,
          document: server.metadata as unknown as JsonObject,
          fetchedAt,
          freshUntil: fetchedAt + seconds * 1000,
        })
        .catch(() => undefined);
    }
    return server;
  }
}
