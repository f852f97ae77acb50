/**
 * Where each trusted authorization server publishes its keys and its introspection endpoint, discovered lazily.
 *
 * Rules kept here:
 * - RFC 8414 Section 3 first, then OpenID Connect Discovery 1.0 Section 4 (the order of MCP 2026-07-28
 *   "Authorization Server Metadata Discovery"); a 4xx (or a redirect, which is not followed) moves on to the next
 *   URL, a 5xx or a network failure is an error.
 * - RFC 8414 Section 3.3: the document's `issuer` equals the issuer the URL was built from, byte for byte, or the
 *   document is not used (a mix-up defence: keys published under one issuer never verify another's tokens).
 * - Discovery happens on the first token that needs it, never at boot, so the stack starts in any order; a failure
 *   is remembered for a short backoff so a burst of requests does not become a burst of fetches, and concurrent
 *   requests share one fetch. A document past its age keeps being used while it is discovered again, and if that
 *   fails (stale-if-error).
 */
import { EndpointUrlSchema, IssuerUrlSchema } from '@portcullis/metadata';
import { authorizationServerMetadataUrls } from '@portcullis/protocol';
import { z } from 'zod';
import type { ResourceServerConfig } from '../../config/resource-server.config.js';
import { fetchJson, UpstreamFetchError } from './fetch-json.js';

// Only the members the resource server reads are validated: an unrelated malformed member must not stop token
// validation, while every URL it does use must be https or loopback http.
const DiscoveredMetadataSchema = z.looseObject({
  issuer: IssuerUrlSchema,
  jwks_uri: EndpointUrlSchema.optional(),
  introspection_endpoint: EndpointUrlSchema.optional(),
  token_endpoint: EndpointUrlSchema.optional(),
});

/** What the resource server uses of an authorization server's metadata. */
export interface DiscoveredAuthorizationServer {
  readonly issuer: string;
  readonly jwksUri?: string;
  readonly introspectionEndpoint?: string;
  /** Where RFC 8693 token exchange is asked (`upstreamToken`). */
  readonly tokenEndpoint?: string;
}

type Entry =
  | { state: 'ok'; value: DiscoveredAuthorizationServer; until: number }
  | { state: 'failed'; error: UpstreamFetchError; until: number }
  | {
      state: 'pending';
      promise: Promise<DiscoveredAuthorizationServer>;
      previous?: DiscoveredAuthorizationServer;
    };

/**
 * Discovers and caches authorization server metadata, per trusted issuer.
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc8414#section-3 RFC 8414 Section 3}
 * @see {@link https://openid.net/specs/openid-connect-discovery-1_0.html#ProviderConfig OpenID Connect Discovery 1.0 Section 4}
 */
export class AuthorizationServerDirectory {
  readonly #entries = new Map<string, Entry>();

  constructor(private readonly config: ResourceServerConfig) {}

  /**
   * The issuer's metadata, from cache or freshly discovered.
   *
   * @throws UpstreamFetchError when the metadata cannot be obtained (the caller answers 503).
   */
  async lookup(issuer: string): Promise<DiscoveredAuthorizationServer> {
    if (!this.config.authorizationServers.includes(issuer)) {
      // Never fetch from an issuer named only by an unverified token: that would be a server-side request forgery.
      throw new UpstreamFetchError(`${issuer} is not a trusted authorization server`);
    }
    const entry = this.#entries.get(issuer);
    const now = Date.now();
    if (entry?.state === 'ok' && entry.until > now) return entry.value;
    if (entry?.state === 'failed' && entry.until > now) throw entry.error;
    if (entry?.state === 'pending') return entry.previous ?? entry.promise;

    const { maxAgeMs, failureBackoffMs } = this.config.tokens.discovery;
    // Metadata past its age is discovered again; meanwhile, and if that fails, the document held is used
    // (stale-if-error): an authorization server that is away must not make its good tokens fail here.
    const previous = entry?.state === 'ok' ? entry.value : undefined;
    const promise = this.discover(issuer).then(
      (value) => {
        this.#entries.set(issuer, { state: 'ok', value, until: Date.now() + maxAgeMs });
        return value;
      },
      (error: unknown) => {
        if (previous) {
          this.#entries.set(issuer, { state: 'ok', value: previous, until: Date.now() + failureBackoffMs });
          return previous;
        }
        const failure =
          error instanceof UpstreamFetchError
            ? error
            : new UpstreamFetchError(`discovery of ${issuer} failed`, { cause: error });
        this.#entries.set(issuer, { state: 'failed', error: failure, until: Date.now() + failureBackoffMs });
        throw failure;
      },
    );
    this.#entries.set(issuer, { state: 'pending', promise, ...(previous ? { previous } : {}) });
    return previous ?? promise;
  }

  private async discover(issuer: string): Promise<DiscoveredAuthorizationServer> {
    const { timeoutMs } = this.config.tokens.discovery;
    for (const url of authorizationServerMetadataUrls(issuer)) {
      const result = await fetchJson(url, { timeoutMs });
      if (result.status >= 500) throw new UpstreamFetchError(`${url} answered ${result.status}`);
      if (!('body' in result)) continue;
      const parsed = DiscoveredMetadataSchema.safeParse(result.body);
      if (!parsed.success) throw new UpstreamFetchError(`${url} is not valid authorization server metadata`);
      if (parsed.data.issuer !== issuer) {
        throw new UpstreamFetchError(
          `${url} names issuer ${parsed.data.issuer}, not ${issuer} (RFC 8414 3.3)`,
        );
      }
      return Object.freeze({
        issuer,
        ...(parsed.data.jwks_uri ? { jwksUri: parsed.data.jwks_uri } : {}),
        ...(parsed.data.introspection_endpoint
          ? { introspectionEndpoint: parsed.data.introspection_endpoint }
          : {}),
        ...(parsed.data.token_endpoint ? { tokenEndpoint: parsed.data.token_endpoint } : {}),
      });
    }
    throw new UpstreamFetchError(`no authorization server metadata found for ${issuer}`);
  }
}
