// Rules kept here: the Fetch standard's CORS protocol (https://fetch.spec.whatwg.org/#http-cors-protocol) for the
// resource's routes (its metadata document is public, `*`, and answered on its own), and the MCP endpoint's Origin
// check, both reading the one list of allowed browser origins (`browser-origins.ts`):
// - only an allowed origin is granted `Access-Control-Allow-Origin`, echoed with `Vary: Origin`; a disallowed one
//   gets no CORS header at all;
// - the grant covers every answer, errors included: the 401 and 403 challenges (RFC 6750 Section 3) are readable,
//   since `WWW-Authenticate` is exposed, as are the MCP headers (MCP Streamable HTTP "Session Management",
//   "Protocol Version Header") and `DPoP-Nonce` (RFC 9449 Sections 8 and 9);
// - a preflight (`OPTIONS` with `Access-Control-Request-Method`) from an allowed origin is answered 204 with the
//   methods and request headers an MCP client sends (`Authorization` must be listed by name, a `*` never covers
//   it); from any other origin 403, without CORS headers, before any authentication;
// - with the Origin check on, any other request whose `Origin` is present and not allowed is refused with 403 and a
//   JSON-RPC error without `id`, before any authentication (MCP Streamable HTTP, "Security Warning": DNS rebinding,
//   https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#security-warning);
// - no `Access-Control-Allow-Credentials`: tokens travel in `Authorization`, never in cookies.
import type { BrowserOrigins } from './browser-origins.js';

/**
 * Response headers a browser client needs to read: the challenge, the MCP session and protocol version, the DPoP
 * nonce.
 *
 * @see {@link https://fetch.spec.whatwg.org/#http-access-control-expose-headers Fetch, Access-Control-Expose-Headers}
 */
export const CORS_EXPOSED_HEADERS = 'WWW-Authenticate, Mcp-Session-Id, MCP-Protocol-Version, DPoP-Nonce';

/**
 * Request headers an MCP client sends over Streamable HTTP: the token and its DPoP proof, the session and protocol
 * version, `Last-Event-ID` to resume a stream, and the 2026-07-28 `Mcp-Method` and `Mcp-Name`. A tool's
 * `Mcp-Param-{Name}` headers are allowed as the preflight names them.
 *
 * @see {@link https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http MCP Streamable HTTP}
 */
export const CORS_ALLOWED_REQUEST_HEADERS = [
  'Authorization',
  'DPoP',
  'Mcp-Session-Id',
  'MCP-Protocol-Version',
  'Last-Event-ID',
  'Content-Type',
  'Accept',
  'Mcp-Method',
  'Mcp-Name',
] as const;

const ALLOWED_METHODS = 'GET, POST, DELETE';
// RFC 9110 Section 5.1 field names; only `Mcp-Param-` ones are taken from a preflight's request.
const PARAM_HEADER = /^mcp-param-[!#$%&'*+.^_`|~0-9a-z-]+$/;

/** What the CORS rules read of a request. */
export interface BrowserRequest {
  readonly method: string;
  /** The `Origin` header; `undefined` when absent (not a browser's cross-origin request). */
  readonly origin: string | undefined;
  readonly accessControlRequestMethod?: string | undefined;
  readonly accessControlRequestHeaders?: string | undefined;
}

/**
 * What to do with a request that carries `Origin`: the headers to add to whatever answers it, and, when the request
 * is a preflight or a refused origin, the answer itself.
 */
export interface BrowserAccess {
  /** Header fields (lowercase names) to put on the response, whoever writes it. */
  readonly headers: Readonly<Record<string, string>>;
  /** Set when this answers the request: a preflight (204 or 403), or an Origin the check refuses (403). */
  readonly answer?: { readonly status: 204 | 403; readonly body?: unknown };
}

/** The `Mcp-Param-*` names a preflight asks for (lowercase, as browsers send them), echoed back. */
function requestedParamHeaders(requested: string | undefined): string[] {
  if (typeof requested !== 'string') return [];
  return requested
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => PARAM_HEADER.test(name));
}

/**
 * The CORS answer (and, with `checkOrigin`, the Origin check) for a request to the resource, or `undefined` when it
 * carries no `Origin`.
 *
 * @see {@link https://fetch.spec.whatwg.org/#http-cors-protocol Fetch, CORS protocol}
 * @see {@link https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#security-warning MCP Streamable HTTP, Security Warning}
 */
export function browserAccess(
  origins: BrowserOrigins,
  request: BrowserRequest,
  options: { readonly checkOrigin: boolean },
): BrowserAccess | undefined {
  const { origin } = request;
  if (origin === undefined) return undefined;
  const preflight = request.method === 'OPTIONS' && request.accessControlRequestMethod !== undefined;
  if (!origins.allows(origin)) {
    const refused = { vary: 'Origin', 'cache-control': 'no-store' };
    if (preflight) return { headers: refused, answer: { status: 403 } };
    if (!options.checkOrigin) return { headers: { vary: 'Origin' } };
    return {
      headers: refused,
      answer: {
        status: 403,
        body: {
          jsonrpc: '2.0',
          error: { code: -32000, message: 'Forbidden: this Origin may not call the MCP endpoint' },
          id: null,
        },
      },
    };
  }
  const granted = {
    vary: 'Origin',
    'access-control-allow-origin': origin,
    'access-control-expose-headers': CORS_EXPOSED_HEADERS,
  };
  if (!preflight) return { headers: granted };
  return {
    headers: {
      ...granted,
      'access-control-allow-methods': ALLOWED_METHODS,
      'access-control-allow-headers': [
        ...CORS_ALLOWED_REQUEST_HEADERS,
        ...requestedParamHeaders(request.accessControlRequestHeaders),
      ].join(', '),
      'access-control-max-age': '600',
    },
    answer: { status: 204 },
  };
}
