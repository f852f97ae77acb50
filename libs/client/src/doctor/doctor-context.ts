/**
 * What one run of `portcullis doctor` knows: the options, what earlier checks found, and how requests are sent.
 *
 * Rules kept here:
 * - Every request has a timeout and follows no redirect (RFC 8414 and RFC 9728 name one URL each; a client does
 *   not follow a redirect of the MCP endpoint with its token either).
 * - RFC 6750 2.1: the token is sent only in the `Authorization` header, with its scheme; RFC 9449 7.1: a bound
 *   token with a fresh proof for each request, and RFC 9449 9: a server that asks for its nonce
 *   (`use_dpop_nonce`) gets the request once more with it, and the nonce is kept for later requests.
 * - A 2025-era conversation that `token.accepted` opened is ended (`DELETE` with its session) when the run ends.
 */
import type { AuthorizationServerMetadata, ProtectedResourceMetadata } from '@portcullis/metadata';
import { canonicalizeResourceUri, parseWwwAuthenticate, type Challenge } from '@portcullis/protocol';
import { discardBody, type FetchLike } from '../http/http.js';
import type { DoctorOptions, PresentedToken } from './doctor-options.js';
import { legacyHeaders, type McpEra, type McpMessage } from './mcp-messages.js';

/** Protected Resource Metadata found at one URL. */
export interface FoundResourceMetadata {
  readonly url: string;
  readonly metadata: ProtectedResourceMetadata;
}

/** Where a resource's metadata may be published. */
export type ResourceMetadataLocation = 'path-aware' | 'root' | 'challenge-url';

/** An authorization server the resource metadata names, and what the checks found about it. */
export interface KnownAuthorizationServer {
  /** Exactly as `authorization_servers` lists it. */
  readonly issuer: string;
  /** Its metadata discovery URLs, in the specification's order; unset when the issuer is not a usable URL. */
  urls?: readonly string[];
  /** The first usable metadata document, and its URL. */
  metadata?: AuthorizationServerMetadata;
  metadataUrl?: string;
}

/** The JSON headers of an MCP POST (Streamable HTTP: the client accepts both JSON and an event stream). */
export const MCP_POST_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
} as const;

/** The state shared by the checks of one run. */
export class DoctorContext {
  /** The MCP endpoint as given. */
  readonly server: string;
  readonly fetch: FetchLike;
  /** Set by a check after which nothing else can run (the server did not answer). */
  halted = false;
  /** The answer to an MCP request without a token (its body discarded), and its Bearer or DPoP challenge. */
  unauthenticated: Response | undefined;
  challenge: Challenge | undefined;
  readonly resourceMetadata = new Map<ResourceMetadataLocation, FoundResourceMetadata>();
  /** The document clients would use. */
  usedResourceMetadata: FoundResourceMetadata | undefined;
  readonly authorizationServers: KnownAuthorizationServer[] = [];
  /** The protocol the server answered the token with. */
  era: McpEra | undefined;
  tokenAccepted = false;
  /** The latest DPoP nonce the server gave. */
  #nonce: string | undefined;

  constructor(readonly options: DoctorOptions) {
    this.server = options.serverUrl;
    const base = options.fetch ?? fetch;
    const timeoutMs = options.timeoutMs ?? 10_000;
    this.fetch = (input, init) =>
      base(input, { redirect: 'manual', signal: AbortSignal.timeout(timeoutMs), ...init });
  }

  /** The server's URL in canonical form (what its resource metadata must name); throws for a URL that is not one. */
  get resource(): string {
    return canonicalizeResourceUri(this.server);
  }

  /** One request whose body is not needed; `undefined` when it got no answer. */
  async send(url: string, init: RequestInit): Promise<Response | undefined> {
    try {
      const response = await this.fetch(url, init);
      await discardBody(response);
      return response;
    } catch {
      return undefined;
    }
  }

  /** An MCP POST of `message` without a token, to `url` (default the server), its body discarded. */
  sendMcp(message: McpMessage, url: string = this.server): Promise<Response | undefined> {
    return this.send(url, {
      method: 'POST',
      headers: { ...MCP_POST_HEADERS, ...message.headers },
      body: message.body,
    });
  }

  /**
   * An MCP POST of `message` with `token` (as its scheme says, with a proof when bound); the body is left for the
   * caller to read or discard. `undefined` when it got no answer.
   */
  async present(
    token: PresentedToken,
    message: McpMessage,
    url: string = this.server,
  ): Promise<Response | undefined> {
    const headers: Record<string, string> = {
      ...MCP_POST_HEADERS,
      ...message.headers,
      authorization: `${token.scheme ?? 'Bearer'} ${token.accessToken}`,
    };
    const sendOnce = async (nonce: string | undefined): Promise<Response> => {
      if (token.proof !== undefined) headers['dpop'] = await proofOf(token.proof, token, 'POST', url, nonce);
      return this.fetch(url, { method: 'POST', headers, body: message.body });
    };
    try {
      let response = await sendOnce(this.#nonce);
      const nonce = response.headers.get('dpop-nonce') ?? undefined;
      if (token.proof !== undefined && nonce !== undefined) {
        this.#nonce = nonce;
        if (response.status === 401 && wantsNonce(response)) {
          await discardBody(response);
          response = await sendOnce(nonce);
        }
      }
      return response;
    } catch {
      return undefined;
    }
  }

  /** `present`, its body discarded: what the checks read is the status and the headers. */
  async presentOnly(token: PresentedToken, message: McpMessage): Promise<Response | undefined> {
    const response = await this.present(token, message);
    if (response !== undefined) await discardBody(response);
    return response;
  }

  /** Ends the 2025-era conversation `token.accepted` opened, if it has a session; best effort. */
  async close(): Promise<void> {
    const token = this.options.token;
    const era = this.era;
    if (token === undefined || era?.kind !== 'legacy' || era.sessionId === undefined) return;
    try {
      const headers: Record<string, string> = {
        ...legacyHeaders(era),
        authorization: `${token.scheme ?? 'Bearer'} ${token.accessToken}`,
      };
      if (token.proof !== undefined)
        headers['dpop'] = await proofOf(token.proof, token, 'DELETE', this.server, this.#nonce);
      const response = await this.fetch(this.server, { method: 'DELETE', headers });
      await discardBody(response);
    } catch {
      // The session expires on its own.
    }
  }
}

/** The DPoP proof of one request with `token`. */
function proofOf(
  proof: NonNullable<PresentedToken['proof']>,
  token: PresentedToken,
  method: string,
  url: string,
  nonce: string | undefined,
): Promise<string> {
  return proof({ method, url, accessToken: token.accessToken, ...(nonce === undefined ? {} : { nonce }) });
}

/** The response's Bearer (or DPoP) challenge: the first of them in `WWW-Authenticate`. */
export function authChallenge(response: Response): Challenge | undefined {
  const header = response.headers.get('www-authenticate');
  if (header === null) return undefined;
  return parseWwwAuthenticate(header).find((challenge) => ['bearer', 'dpop'].includes(challenge.scheme));
}

/** Whether a challenge of the response is DPoP's `use_dpop_nonce` (RFC 9449 9). */
function wantsNonce(response: Response): boolean {
  const header = response.headers.get('www-authenticate');
  return (
    header !== null &&
    parseWwwAuthenticate(header).some((challenge) => challenge.params['error'] === 'use_dpop_nonce')
  );
}

/** `, <error>` of the response's challenge, or nothing. */
export function errorOf(response: Response): string {
  const error = authChallenge(response)?.params['error'];
  return error === undefined ? '' : `, ${error}`;
}

/** An error in a few words, with its cause. */
export function describeFailure(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
    return `${error.message}${cause}`;
  }
  return String(error);
}
