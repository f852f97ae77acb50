import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { AuthorizationMetrics } from '../../metrics/authorization.metrics.js';
import {
  AUTHORIZATION_SERVER_OPTIONS,
  type AuthorizationServerOptions,
} from '../../config/authorization-server.options.js';
import type { ClientSource, OAuthClient } from '../client.js';
import { cacheLifetimeSeconds } from '@portcullis/protocol';
import {
  METADATA_DOCUMENT_LIMITS,
  type MetadataDocumentLimits,
} from './client-id-metadata-documents.options.js';
import { MetadataDocumentCache } from './metadata-document.cache.js';
import { clientFromMetadataDocument } from './metadata-document-client.js';
import { MetadataDocumentFetcher } from './metadata-document.fetcher.js';
import { MetadataDocumentRefusal } from './metadata-document-refusal.js';
import { namesMetadataDocument } from './metadata-document-url.check.js';

/**
 * Clients identified by a client ID metadata document: the `client_id` is an https URL, and the document there
 * (fetched through the SSRF guard, size and time limits, validated, cached by its HTTP cache headers) is the
 * client's registration. Every failure is logged with its reason and answers "unknown client" (`undefined`):
 * `/authorize` shows its error page without redirecting, `/token` answers `invalid_client`.
 *
 * @see https://datatracker.ietf.org/doc/html/draft-ietf-oauth-client-id-metadata-document-00#section-4
 */
@Injectable()
export class ClientIdMetadataDocumentSource implements ClientSource, OnApplicationShutdown {
  readonly #logger = new Logger('ClientIdMetadataDocuments');
  readonly #enabled: boolean;
  readonly #allowLoopback: boolean;
  readonly #limits: MetadataDocumentLimits = METADATA_DOCUMENT_LIMITS;
  readonly #cache = new MetadataDocumentCache<OAuthClient>(METADATA_DOCUMENT_LIMITS.maxCacheEntries);
  #fetcher: MetadataDocumentFetcher | undefined;

  constructor(
    @Inject(AUTHORIZATION_SERVER_OPTIONS) private readonly options: AuthorizationServerOptions,
    private readonly metrics: AuthorizationMetrics,
  ) {
    const settings = options.clientIdMetadataDocuments;
    this.#enabled = settings?.enabled ?? false;
    this.#allowLoopback = settings?.allowLoopback ?? false;
  }

  /** Whether client ID metadata documents are on, and `clientId` is a URL naming one. */
  handles(clientId: string): boolean {
    return this.#enabled && namesMetadataDocument(clientId, this.#allowLoopback);
  }

  async find(clientId: string): Promise<OAuthClient | undefined> {
    if (!this.handles(clientId)) return undefined;
    try {
      return await this.#cache.get(clientId, () => this.#load(clientId));
    } catch (error) {
      const refusal =
        error instanceof MetadataDocumentRefusal
          ? error
          : new MetadataDocumentRefusal('network', String(error));
      this.metrics.metadataDocumentFetched(refusal.reason);
      this.#logger.warn(
        { clientId, reason: refusal.reason, detail: refusal.message },
        `client ID metadata document refused: ${refusal.reason}`,
      );
      return undefined;
    }
  }

  // After the HTTP server has drained, not before (Nest runs onModuleDestroy while requests are still served).
  async onApplicationShutdown(): Promise<void> {
    await this.#fetcher?.close();
  }

  async #load(clientId: string): Promise<{ value: OAuthClient; lifetimeSeconds: number }> {
    const { json, headers } = await this.#fetch().fetch(clientId);
    // Counted once per fetch: `ok` only for a document that is also valid (a refused one is counted by `find`).
    const value = clientFromMetadataDocument(json, clientId, {
      operatorGrants: this.options.extensions.operatorGrantTypes(),
      privateUseSchemes: this.options.allowedRedirectSchemes ?? [],
    });
    this.metrics.metadataDocumentFetched('ok');
    return { value, lifetimeSeconds: cacheLifetimeSeconds(headers, this.#limits) };
  }

  /** The fetcher, made on first use: a server that never sees a document URL opens no agent. */
  #fetch(): MetadataDocumentFetcher {
    const overrides = this.options.clientIdMetadataDocuments?.fetchOptions;
    this.#fetcher ??= new MetadataDocumentFetcher({
      allowLoopback: this.#allowLoopback,
      limits: this.#limits,
      ...(overrides?.lookup ? { lookup: overrides.lookup } : {}),
      ...(overrides?.ca ? { ca: overrides.ca } : {}),
    });
    return this.#fetcher;
  }
}
