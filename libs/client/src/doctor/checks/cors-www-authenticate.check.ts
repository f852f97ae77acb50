/**
 * Rules kept here:
 * - Fetch Standard, CORS protocol: a browser-based MCP client (the MCP Inspector connecting directly, a web app)
 *   sends its JSON POST only after a preflight (`OPTIONS` with `Origin`, `Access-Control-Request-Method` and
 *   `-Headers`) that allows its origin, the method and every non-safelisted header it sends (`Authorization` is
 *   never covered by `*`); and it can read `WWW-Authenticate` on the 401, which is not a CORS-safelisted response
 *   header, only when the 401 allows its origin and lists the header in `Access-Control-Expose-Headers` (`*` only
 *   without credentials). Without it the client gets a 401 it cannot act on: no `resource_metadata`, no
 *   authorization. RFC 9728 5.1 and MCP "Protected Resource Metadata Discovery Requirements" make that header the
 *   entry point of discovery.
 * - A server may serve no browser client at all, so this is a warning, never a failure. The origin probed is the
 *   one the person names (`browserOrigin`), else the MCP Inspector's. The headers asked for are those of the era the
 *   server speaks (`Mcp-Method` and `Mcp-Name` under 2026-07-28), and `DPoP` for a DPoP-bound token.
 * - What operators get wrong (public MCP issue trackers, 2025-2026): the 401 without
 *   `Access-Control-Expose-Headers: WWW-Authenticate` (twentyhq/twenty#19836: claude.ai's connector could not
 *   start; better-auth/better-auth#10272; modelcontextprotocol/inspector#402), or the header exposed on a response
 *   that allows no origin (better-auth/better-auth#4462), or a preflight that leaves out `Authorization`
 *   (sourcemeta/one#1181) or the 2026-07-28 headers (windmill-labs/windmill#10535).
 *
 * @see https://github.com/twentyhq/twenty/pull/19836
 * @see https://github.com/better-auth/better-auth/issues/10272
 */
import { finding, type ServerCheck } from '../doctor-check.js';
import { MCP_POST_HEADERS, type DoctorContext } from '../doctor-context.js';
import { probeRequest } from '../mcp-messages.js';
import { REFERENCES } from '../references.js';

/** The MCP Inspector's web origin, the browser client most often pointed at a server directly. */
export const DEFAULT_BROWSER_ORIGIN = 'http://localhost:6274';

/** The values of a comma-separated header, lower-cased. */
function listOf(response: Response, name: string): string[] {
  return (response.headers.get(name) ?? '')
    .split(',')
    .map((value) => value.trim().toLowerCase())
    .filter((value) => value !== '');
}

/** Whether the response lets `origin` read it. */
function allowsOrigin(response: Response, origin: string): boolean {
  const allowed = response.headers.get('access-control-allow-origin');
  return allowed === '*' || allowed === origin;
}

/**
 * The request headers a browser client of the server's era sends beside `Content-Type`: the token's, and the MCP
 * ones (all of a 2026-07-28 request's; a 2025-era client's after `initialize`; without a token, the era unknown,
 * only `MCP-Protocol-Version`, which both send), lower-cased and sorted as a browser lists them.
 */
function requestedHeaders({ era, options }: DoctorContext): string[] {
  const mcp =
    era?.kind === 'modern'
      ? ['mcp-method', 'mcp-name', 'mcp-protocol-version']
      : era?.kind === 'legacy' && era.sessionId !== undefined
        ? ['mcp-protocol-version', 'mcp-session-id']
        : ['mcp-protocol-version'];
  const proof = options.token?.scheme?.toLowerCase() === 'dpop' ? ['dpop'] : [];
  return ['authorization', 'content-type', ...mcp, ...proof].sort();
}

/**
 * A browser client can send its MCP request and read the 401's `WWW-Authenticate`.
 *
 * @see https://fetch.spec.whatwg.org/#http-access-control-expose-headers
 */
export const corsWwwAuthenticateCheck: ServerCheck = {
  id: 'cors.www_authenticate',
  scope: 'server',
  reference: REFERENCES.cors,
  async run(context) {
    const origin = context.options.browserOrigin ?? DEFAULT_BROWSER_ORIGIN;
    const hint =
      context.options.browserOrigin === undefined ? ' (name the origin you serve with --origin)' : '';
    const message = probeRequest(context.era);
    const requested = requestedHeaders(context);
    const preflight = await context.send(context.server, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': requested.join(','),
      },
    });
    if (preflight === undefined) return finding('warn', `The CORS preflight from ${origin} got no answer.`);
    if (!preflight.ok || !allowsOrigin(preflight, origin)) {
      return finding(
        'warn',
        `The CORS preflight from ${origin} is not allowed (HTTP ${preflight.status}, Access-Control-Allow-Origin ${preflight.headers.get('access-control-allow-origin') ?? 'absent'}): a browser client there cannot send MCP requests${hint}.`,
      );
    }
    const methods = listOf(preflight, 'access-control-allow-methods');
    const allowedHeaders = listOf(preflight, 'access-control-allow-headers');
    const missing = [
      ...(methods.includes('post') || methods.includes('*') ? [] : ['POST']),
      ...requested.filter(
        (name) =>
          !allowedHeaders.includes(name) && !(allowedHeaders.includes('*') && name !== 'authorization'),
      ),
    ];
    if (missing.length > 0) {
      return finding(
        'warn',
        `The CORS preflight from ${origin} does not allow ${missing.join(', ')}: a browser client cannot send its MCP requests.`,
      );
    }
    const unauthenticated = await context.send(context.server, {
      method: 'POST',
      headers: { ...MCP_POST_HEADERS, ...message.headers, origin },
      body: message.body,
    });
    if (unauthenticated === undefined) return finding('warn', `An MCP request from ${origin} got no answer.`);
    if (unauthenticated.status !== 401) {
      return finding(
        'warn',
        `An MCP request from ${origin} without a token got HTTP ${unauthenticated.status}, not 401: a browser client there is not challenged.`,
      );
    }
    const exposed = listOf(unauthenticated, 'access-control-expose-headers');
    const credentials = unauthenticated.headers.get('access-control-allow-credentials') === 'true';
    const readable =
      allowsOrigin(unauthenticated, origin) &&
      (exposed.includes('www-authenticate') || (exposed.includes('*') && !credentials));
    return readable
      ? finding(
          'pass',
          `A browser client at ${origin} passes the preflight and reads WWW-Authenticate on the 401.`,
        )
      : finding(
          'warn',
          `The 401 to a request from ${origin} ${allowsOrigin(unauthenticated, origin) ? `does not expose WWW-Authenticate (Access-Control-Expose-Headers: ${exposed.join(', ') || 'absent'})` : 'allows no origin (Access-Control-Allow-Origin absent)'}: a browser client cannot read the challenge, so it cannot find the resource metadata.`,
        );
  },
};
