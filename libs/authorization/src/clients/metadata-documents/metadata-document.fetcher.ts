// Rules kept: MCP 2026-07-28 "Client ID Metadata Documents" and the CIMD draft, sections 4.3 and 6: the document is
// fetched with GET and `Accept: application/json`; only a 200 is a document; redirects are not followed (a 3xx
// is a failure: the document must come from the URL that is the client's identity); at most 5 KiB (the draft's
// "Maximum Response Size"; a Content-Length above the limit is refused before the body is read, a longer body is
// cut off as soon as it passes the limit, so memory stays flat); the whole fetch ends within about 2.5 s (our
// choice; undici's headers and body timeouts bound each wait, and one deadline covers resolution, connection and
// a server that trickles bytes); the body is UTF-8 JSON and a JSON object. Connections go through the SSRF guard
// of guarded-connector.ts.
import type { IncomingHttpHeaders } from 'node:http';
import { Agent, type Dispatcher } from 'undici';
import type { HostLookup, MetadataDocumentLimits } from './client-id-metadata-documents.options.js';
import { guardedConnector } from './guarded-connector.js';
import { MetadataDocumentRefusal } from './metadata-document-refusal.js';

/**
 * What a {@link MetadataDocumentFetcher} is made with.
 *
 * @see https://datatracker.ietf.org/doc/html/draft-ietf-oauth-client-id-metadata-document-00#section-4.3
 */
export interface MetadataDocumentFetcherOptions {
  readonly allowLoopback: boolean;
  readonly limits: MetadataDocumentLimits;
  readonly lookup?: HostLookup;
  readonly ca?: string | Buffer | readonly (string | Buffer)[];
}

/**
 * A fetched document: a JSON object, and the response headers its cache lifetime is read from.
 *
 * @see https://datatracker.ietf.org/doc/html/draft-ietf-oauth-client-id-metadata-document-00#section-4.4
 */
export interface FetchedMetadataDocument {
  readonly json: Readonly<Record<string, unknown>>;
  readonly headers: IncomingHttpHeaders;
}

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);

/**
 * Fetches client ID metadata documents over a dedicated undici agent whose every connection passes the SSRF
 * guard. Throws {@link MetadataDocumentRefusal} for every failure.
 *
 * @see https://datatracker.ietf.org/doc/html/draft-ietf-oauth-client-id-metadata-document-00#section-4.3
 */
export class MetadataDocumentFetcher {
  readonly #agent: Agent;
  readonly #limits: MetadataDocumentLimits;

  constructor(options: MetadataDocumentFetcherOptions) {
    this.#limits = options.limits;
    this.#agent = new Agent({
      connect: guardedConnector({
        allowLoopback: options.allowLoopback,
        timeoutMs: options.limits.timeoutMs,
        ...(options.lookup ? { lookup: options.lookup } : {}),
        ...(options.ca ? { ca: options.ca } : {}),
      }),
      headersTimeout: options.limits.timeoutMs,
      bodyTimeout: options.limits.timeoutMs,
      maxResponseSize: options.limits.maxBytes,
      keepAliveTimeout: 4_000,
    });
  }

  async fetch(url: string): Promise<FetchedMetadataDocument> {
    const target = new URL(url);
    const signal = AbortSignal.timeout(this.#limits.timeoutMs);
    try {
      const response = await this.#agent.request({
        origin: target.origin,
        path: `${target.pathname}${target.search}`,
        method: 'GET',
        headers: { accept: 'application/json', 'accept-encoding': 'identity' },
        signal,
      });
      try {
        return await this.#read(response);
      } finally {
        // Unread bytes are never drained: destroying the body drops the connection. Its abort error is expected.
        response.body.on('error', () => undefined).destroy();
      }
    } catch (error) {
      throw this.#refusal(error, signal);
    }
  }

  /** Closes every connection at once. */
  async close(): Promise<void> {
    await this.#agent.destroy();
  }

  async #read({ statusCode, headers, body }: Dispatcher.ResponseData): Promise<FetchedMetadataDocument> {
    if (statusCode >= 300 && statusCode < 400) {
      throw new MetadataDocumentRefusal('redirect', `answered ${statusCode}; redirects are not followed`);
    }
    if (statusCode !== 200) throw new MetadataDocumentRefusal('status', `answered ${statusCode}, not 200`);
    const declared = headers['content-length'];
    if (typeof declared === 'string' && Number(declared) > this.#limits.maxBytes) {
      throw this.#tooLarge(`Content-Length is ${declared}`);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of body as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > this.#limits.maxBytes) throw this.#tooLarge(`the body passed ${size} bytes`);
      chunks.push(chunk);
    }
    let json: unknown;
    try {
      json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks)));
    } catch {
      throw new MetadataDocumentRefusal('not_json', 'the body is not UTF-8 JSON');
    }
    if (typeof json !== 'object' || json === null || Array.isArray(json)) {
      throw new MetadataDocumentRefusal('not_json', 'the body is not a JSON object');
    }
    return { json: json as Record<string, unknown>, headers };
  }

  #tooLarge(detail: string): MetadataDocumentRefusal {
    return new MetadataDocumentRefusal('too_large', `${detail}; the limit is ${this.#limits.maxBytes} bytes`);
  }

  #refusal(error: unknown, signal: AbortSignal): MetadataDocumentRefusal {
    if (error instanceof MetadataDocumentRefusal) return error;
    const code = (error as { code?: unknown } | undefined)?.code;
    if (signal.aborted || (typeof code === 'string' && TIMEOUT_CODES.has(code))) {
      return new MetadataDocumentRefusal('timeout', `no complete answer within ${this.#limits.timeoutMs} ms`);
    }
    if (code === 'UND_ERR_RES_EXCEEDED_MAX_SIZE') return this.#tooLarge('the response is too large');
    const cause = (error as { cause?: unknown } | undefined)?.cause;
    if (cause instanceof MetadataDocumentRefusal) return cause;
    return new MetadataDocumentRefusal('network', error instanceof Error ? error.message : String(error));
  }
}
