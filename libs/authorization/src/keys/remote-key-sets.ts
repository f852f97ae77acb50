// Rules kept: RFC 7517 5 and RFC 7591 2 (`jwks_uri`: the URL of a JWK Set document holding a party's public keys),
// fetched as a client ID metadata document is (CIMD draft 4.3 and 6: `GET`, no redirects, only a 200, the SSRF
// guard of guarded-connector.ts on every connection, about 2.5 s for the whole fetch), with room for a few RSA keys
// (64 KiB), and cached for its HTTP lifetime within [1 minute, 24 hours] (RFC 9111 4.2, CIMD draft 4.4); a failure
// is never cached. Only asymmetric public keys are kept (RFC 8725 3.1), and a document without one is refused.
// A `kid` missing from the cached set (the party rotated its keys) fetches the set again, at most once every
// 30 seconds per URL (our choice, as jose's remote key sets do), so unknown `kid`s cannot make this server fetch on
// every request. One policy for every key set this server fetches: a client's `jwks_uri` (`private_key_jwt`) and a
// trusted issuer's, for an extension's grant (`GrantContext.fetchJwks`).
import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { cacheLifetimeSeconds, publicJwkSet } from '@portcullis/protocol';
import type { JSONWebKeySet } from 'jose';
import {
  METADATA_DOCUMENT_LIMITS,
  type MetadataDocumentLimits,
} from '../clients/metadata-documents/client-id-metadata-documents.options.js';
import { MetadataDocumentCache } from '../clients/metadata-documents/metadata-document.cache.js';
import { MetadataDocumentFetcher } from '../clients/metadata-documents/metadata-document.fetcher.js';
import { MetadataDocumentRefusal } from '../clients/metadata-documents/metadata-document-refusal.js';
import {
  AUTHORIZATION_SERVER_OPTIONS,
  type AuthorizationServerOptions,
} from '../config/authorization-server.options.js';

/** The limits of a client ID metadata document, with room for a few RSA keys: 64 KiB. */
export const JWKS_LIMITS: MetadataDocumentLimits = Object.freeze({
  ...METADATA_DOCUMENT_LIMITS,
  maxBytes: 64 * 1024,
});

/** The least time between two fetches of one key set for a `kid` it lacks, in milliseconds. */
export const KEY_SET_REFRESH_COOLDOWN_MS = 30_000;

interface FetchedKeySet {
  readonly keys: JSONWebKeySet;
  readonly fetchedAt: number;
}

/**
 * The public keys published at `jwks_uri`s, fetched through the SSRF guard and cached. The loopback exception of
 * client ID metadata documents (`CIMD_ALLOW_LOOPBACK`, development only) applies here too.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7517#section-5
 * @see https://datatracker.ietf.org/doc/html/draft-ietf-oauth-client-id-metadata-document-00#section-6
 */
@Injectable()
export class RemoteKeySets implements OnApplicationShutdown {
  readonly #logger = new Logger('RemoteKeySets');
  readonly #cache = new MetadataDocumentCache<FetchedKeySet>(JWKS_LIMITS.maxCacheEntries);
  #fetcher: MetadataDocumentFetcher | undefined;

  constructor(@Inject(AUTHORIZATION_SERVER_OPTIONS) private readonly options: AuthorizationServerOptions) {}

  /**
   * The asymmetric public keys at `uri`; fetched again first when `kid` is given, the cached set lacks it and the
   * cooldown has passed. Throws (a `MetadataDocumentRefusal`, logged) when the document cannot be had.
   */
  async fetch(uri: string, kid?: string): Promise<JSONWebKeySet> {
    try {
      let fetched = await this.#cache.get(uri, () => this.#load(uri));
      if (
        kid !== undefined &&
        !fetched.keys.keys.some((key) => key.kid === kid) &&
        Date.now() - fetched.fetchedAt >= KEY_SET_REFRESH_COOLDOWN_MS
      ) {
        this.#cache.evict(uri);
        fetched = await this.#cache.get(uri, () => this.#load(uri));
      }
      return fetched.keys;
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      this.#logger.warn({ jwksUri: uri, detail }, 'jwks_uri refused');
      throw error;
    }
  }

  // After the HTTP server has drained, not before (Nest runs onModuleDestroy while requests are still served).
  async onApplicationShutdown(): Promise<void> {
    await this.#fetcher?.close();
  }

  async #load(uri: string): Promise<{ value: FetchedKeySet; lifetimeSeconds: number }> {
    const { json, headers } = await this.#fetch().fetch(uri);
    const keys = publicJwkSet(json);
    if (!keys)
      throw new MetadataDocumentRefusal('invalid_document', 'not a JWK Set of asymmetric public keys');
    return {
      value: { keys, fetchedAt: Date.now() },
      lifetimeSeconds: cacheLifetimeSeconds(headers, JWKS_LIMITS),
    };
  }

  #fetch(): MetadataDocumentFetcher {
    const settings = this.options.clientIdMetadataDocuments;
    const overrides = settings?.fetchOptions;
    this.#fetcher ??= new MetadataDocumentFetcher({
      allowLoopback: settings?.allowLoopback ?? false,
      limits: JWKS_LIMITS,
      ...(overrides?.lookup ? { lookup: overrides.lookup } : {}),
      ...(overrides?.ca ? { ca: overrides.ca } : {}),
    });
    return this.#fetcher;
  }
}
