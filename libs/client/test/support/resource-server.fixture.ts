// A protected resource on loopback: RFC 9728 metadata, and an endpoint that accepts only live bearer tokens issued
// for its own resource identifier (RFC 8707 audience), answering 401 and 403 with RFC 6750 / RFC 9728 challenges;
// with `dpop`, DPoP-bound tokens with a proof per request (RFC 9449 7), bound tokens refused as Bearer.
import type { IncomingHttpHeaders } from 'node:http';
import type { FakeAuthorizationServer } from './authorization-server.fixture.js';
import { DpopChecker, type DpopServerOptions } from './dpop.fixture.js';
import { sendJson, startServer, type RunningServer } from './http-server.js';

export interface FakeResourceServerOptions {
  /** The authorization servers the metadata names, read on every request (so a test can move the resource). */
  readonly authorizationServers: () => readonly FakeAuthorizationServer[];
  readonly path?: string;
  /** Where the metadata is served; `header` puts its URL in the challenge, the others rely on well-known fallback. */
  readonly metadataAt?: 'header' | 'path-inserted' | 'root';
  /** Rewrites the metadata document before it is served. */
  readonly metadata?: (document: Record<string, unknown>) => Record<string, unknown>;
  readonly scopesSupported?: readonly string[];
  /** The `scope` of the 401 challenge; none when absent. */
  readonly challengeScope?: readonly string[];
  /** The scopes an operation needs, from the JSON-RPC body. */
  readonly requiredScopes?: (body: Record<string, unknown>) => readonly string[];
  /** Accept DPoP-bound tokens, each request with its proof (RFC 9449 7.1). */
  readonly dpop?: DpopServerOptions;
  /** The schemes of every challenge, in order; default `Bearer`, then `DPoP` with `dpop`. */
  readonly challengeSchemes?: readonly string[];
}

export interface ResourceRequestRecord {
  readonly url: string;
  readonly method: string;
  readonly authorization: string | undefined;
  /** The `DPoP` proof header. */
  readonly dpop: string | undefined;
  readonly status: number;
}

export class FakeResourceServer {
  readonly requests: ResourceRequestRecord[] = [];
  readonly metadataRequests: string[] = [];
  /** The resource's DPoP checks, with `dpop`. */
  readonly dpop: DpopChecker | undefined;
  #server: RunningServer | undefined;

  private constructor(readonly options: FakeResourceServerOptions) {
    this.dpop = options.dpop === undefined ? undefined : new DpopChecker(options.dpop);
  }

  static async start(options: FakeResourceServerOptions): Promise<FakeResourceServer> {
    const rs = new FakeResourceServer(options);
    rs.#server = await startServer(async (request, response, body) => {
      const url = new URL(request.url ?? '/', rs.origin);
      if (request.method === 'GET' && url.pathname.startsWith('/.well-known/oauth-protected-resource')) {
        rs.metadataRequests.push(url.pathname);
        if (url.pathname !== rs.metadataPath) return sendJson(response, 404, { error: 'not_found' });
        return sendJson(response, 200, rs.#metadata());
      }
      if (url.pathname !== rs.path) return sendJson(response, 404, { error: 'not_found' });
      const [status, headers, json] = await rs.#protected(request.method ?? '', url, request.headers, body);
      const dpop = request.headers['dpop'];
      rs.requests.push({
        url: url.href,
        method: request.method ?? '',
        authorization: request.headers.authorization,
        dpop: Array.isArray(dpop) ? dpop.join(', ') : dpop,
        status,
      });
      return sendJson(response, status, json, headers);
    });
    return rs;
  }

  get origin(): string {
    return (this.#server as RunningServer).url;
  }

  get path(): string {
    return this.options.path ?? '/mcp';
  }

  /** The resource URL the client calls. */
  get url(): string {
    return `${this.origin}${this.path}`;
  }

  get metadataPath(): string {
    return this.options.metadataAt === 'root'
      ? '/.well-known/oauth-protected-resource'
      : `/.well-known/oauth-protected-resource${this.path}`;
  }

  /** The resource identifier the metadata publishes and tokens must be issued for. */
  get resource(): string {
    const document = this.#metadata();
    return document['resource'] as string;
  }

  close(): Promise<void> {
    return (this.#server as RunningServer).close();
  }

  #metadata(): Record<string, unknown> {
    const document: Record<string, unknown> = {
      resource: this.options.metadataAt === 'root' ? this.origin : this.url,
      authorization_servers: this.options.authorizationServers().map((as) => as.issuer),
      ...(this.options.scopesSupported === undefined
        ? {}
        : { scopes_supported: this.options.scopesSupported }),
    };
    return this.options.metadata?.(document) ?? document;
  }

  #challenge(parameters: Record<string, string | undefined>): string {
    const all = {
      ...(this.options.metadataAt === undefined || this.options.metadataAt === 'header'
        ? { resource_metadata: `${this.origin}${this.metadataPath}` }
        : {}),
      ...parameters,
    };
    const list = Object.entries(all)
      .filter(([, value]) => value !== undefined)
      .map(([name, value]) => `${name}="${value}"`);
    const schemes =
      this.options.challengeSchemes ?? (this.dpop === undefined ? ['Bearer'] : ['Bearer', 'DPoP']);
    return schemes.map((scheme) => `${scheme} ${list.join(', ')}`).join(', ');
  }

  async #protected(
    method: string,
    url: URL,
    headers: IncomingHttpHeaders,
    body: string,
  ): Promise<[number, Record<string, string>, Record<string, unknown>]> {
    const [, scheme, presented] = /^(Bearer|DPoP) (.+)$/i.exec(headers.authorization ?? '') ?? [];
    const dpopScheme = scheme?.toLowerCase() === 'dpop' && this.dpop !== undefined;
    let grant = presented === undefined ? undefined : this.#verify(presented);
    // RFC 9449 7.1 and 7.2: a bound token only with the DPoP scheme and a proof; an unbound one only as Bearer.
    if (grant !== undefined && (grant.jkt !== undefined) !== dpopScheme) grant = undefined;
    if (grant !== undefined && dpopScheme && this.dpop !== undefined) {
      const outcome = await this.dpop.check(headers, {
        method,
        url: url.href,
        accessToken: presented as string,
        boundTo: grant.jkt as string,
      });
      if (!outcome.ok) {
        const { error } = outcome;
        return [
          401,
          { 'www-authenticate': this.#challenge({ error: error.code }), ...error.headers },
          { error: error.code },
        ];
      }
    }
    const token = presented;
    if (grant === undefined) {
      const scope = this.options.challengeScope?.join(' ');
      return [
        401,
        {
          'www-authenticate': this.#challenge({
            ...(token === undefined ? {} : { error: 'invalid_token' }),
            scope,
          }),
        },
        { error: token === undefined ? 'unauthorized' : 'invalid_token' },
      ];
    }
    let message: Record<string, unknown> = {};
    try {
      message = JSON.parse(body) as Record<string, unknown>;
    } catch {
      // A body that is not JSON needs no operation-specific scope.
    }
    const required = this.options.requiredScopes?.(message) ?? [];
    const missing = required.filter((scope) => !grant.scope.includes(scope));
    if (missing.length > 0) {
      return [
        403,
        { 'www-authenticate': this.#challenge({ error: 'insufficient_scope', scope: required.join(' ') }) },
        { error: 'insufficient_scope' },
      ];
    }
    return [200, {}, { ok: true, method: message['method'] ?? null, scope: grant.scope }];
  }

  #verify(token: string): { scope: readonly string[]; jkt?: string } | undefined {
    for (const as of this.options.authorizationServers()) {
      const grant = as.verify(token);
      if (grant !== undefined && grant.resource === this.resource) return grant;
    }
    return undefined;
  }
}

/** A JSON-RPC request body, as an MCP client sends it. */
export function rpc(method: string, params: Record<string, unknown> = {}): RequestInit {
  return {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  };
}
