import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { createLocalJWKSet, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import {
  AUTHORIZATION_SERVER_OPTIONS,
  type AuthorizationServerOptions,
} from '../../config/authorization-server.options.js';
import type { OAuthClient } from '../client.js';
import { cacheLifetimeSeconds } from '@portcullis/protocol';
import {
  METADATA_DOCUMENT_LIMITS,
  type MetadataDocumentLimits,
} from '../metadata-documents/client-id-metadata-documents.options.js';
import { MetadataDocumentCache } from '../metadata-documents/metadata-document.cache.js';
import { MetadataDocumentFetcher } from '../metadata-documents/metadata-document.fetcher.js';
import { MetadataDocumentRefusal } from '../metadata-documents/metadata-document-refusal.js';

/**
 * A `jwks_uri` document is fetched like a client ID metadata document (the same SSRF guard, no redirects, the same
 * deadline and cache bounds), with room for a few RSA keys: 64 KiB.
 */
const JWKS_LIMITS: MetadataDocumentLimits = Object.freeze({
  ...METADATA_DOCUMENT_LIMITS,
  maxBytes: 64 * 1024,
});

/** Key types that sign with an asymmetric algorithm: a symmetric (`oct`) key is never a client's public key. */
const ASYMMETRIC_KEY_TYPES = new Set(['RSA', 'EC', 'OKP']);

/**
 * The public keys a client authenticates with (`private_key_jwt`): its registered `jwks`, or the document at its
 * `jwks_uri`, fetched through the SSRF guard of client ID metadata documents and cached for its HTTP lifetime.
 * Undefined when the client has no usable key.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7591#section-2 (jwks, jwks_uri)
 * @see https://www.rfc-editor.org/rfc/rfc7523#section-3
 */
@Injectable()
export class ClientKeySets implements OnApplicationShutdown {
  readonly #logger = new Logger('ClientKeySets');
  readonly #cache = new MetadataDocumentCache<JSONWebKeySet>(JWKS_LIMITS.maxCacheEntries);
  #fetcher: MetadataDocumentFetcher | undefined;

  constructor(@Inject(AUTHORIZATION_SERVER_OPTIONS) private readonly options: AuthorizationServerOptions) {}

  async forClient(client: OAuthClient): Promise<JWTVerifyGetKey | undefined> {
    const inline = publicKeySet(client.metadata['jwks']);
    if (inline) return createLocalJWKSet(inline);
    const uri = client.metadata['jwks_uri'];
    if (typeof uri !== 'string') return undefined;
    try {
      const fetched = await this.#cache.get(uri, async () => {
        const { json, headers } = await this.#fetch().fetch(uri);
        const keys = publicKeySet(json);
        if (!keys)
          throw new MetadataDocumentRefusal('invalid_document', 'not a JWK Set of asymmetric public keys');
        return { value: keys, lifetimeSeconds: cacheLifetimeSeconds(headers, JWKS_LIMITS) };
      });
      return createLocalJWKSet(fetched);
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      this.#logger.warn({ clientId: client.clientId, jwksUri: uri, detail }, 'client jwks_uri refused');
      return undefined;
    }
  }

  // After the HTTP server has drained, not before (Nest runs onModuleDestroy while requests are still served).
  async onApplicationShutdown(): Promise<void> {
    await this.#fetcher?.close();
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

/** A JWK Set (RFC 7517 5) of asymmetric public keys only, or undefined. */
function publicKeySet(value: unknown): JSONWebKeySet | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const keys = (value as { keys?: unknown }).keys;
  if (!Array.isArray(keys) || keys.length === 0) return undefined;
  const usable = keys.filter(
    (key): key is JSONWebKeySet['keys'][number] =>
      typeof key === 'object' &&
      key !== null &&
      ASYMMETRIC_KEY_TYPES.has((key as { kty?: unknown }).kty as string) &&
      !('d' in key),
  );
  return usable.length > 0 ? { keys: usable } : undefined;
}
