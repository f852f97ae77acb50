/**
 * Rules kept here:
 * - MCP "Access Token Usage" and RFC 6750 2.1: a valid token in the `Authorization` header is accepted.
 * - The request speaks what the server speaks, as a client that negotiates does: first a 2026-07-28 `server/discover`
 *   (stateless, `_meta` envelope and `MCP-Protocol-Version`, `Mcp-Method` headers; MCP 2026-07-28 "Versioning"); a
 *   server that answers it with its `supportedVersions` including 2026-07-28 speaks that revision. A 401 or 403 is
 *   the token refused. Any other answer (a 2025-era server refuses the request or does not know the method) gets
 *   the 2025 `initialize` handshake, then `notifications/initialized`, with `MCP-Protocol-Version` set to the
 *   version the server chose on every later request (MCP 2025-06-18 and later, "Protocol Version Header"). A
 *   2026-07-28-only server answers `initialize` with 400, which is not a refused token.
 * - Later token checks speak the era found here; a 2025-era session is ended when the run ends.
 */
import { discardBody } from '../../http/http.js';
import { finding, type ServerCheck } from '../doctor-check.js';
import { errorOf } from '../doctor-context.js';
import {
  LEGACY_PROTOCOL_VERSION,
  MODERN_PROTOCOL_VERSION,
  discoverRequest,
  initializeRequest,
  legacyMessage,
  readRpcResult,
} from '../mcp-messages.js';
import { REFERENCES } from '../references.js';

/**
 * The token accepted, and the protocol era the server speaks.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#access-token-usage
 * @see https://modelcontextprotocol.io/specification/2026-07-28/server/discover
 */
export const tokenAcceptedCheck: ServerCheck = {
  id: 'token.accepted',
  scope: 'server',
  reference: REFERENCES.tokenUsage,
  async run(context) {
    const token = context.options.token;
    if (token === undefined) return undefined;
    const discover = await context.present(token, discoverRequest());
    if (discover === undefined) return finding('fail', 'The request with the token did not get an answer.');
    if (discover.ok) {
      const versions = (await readRpcResult(discover))?.['supportedVersions'];
      if (Array.isArray(versions) && versions.includes(MODERN_PROTOCOL_VERSION)) {
        context.era = { kind: 'modern' };
        context.tokenAccepted = true;
        return finding(
          'pass',
          `The token in the Authorization header is accepted (HTTP ${discover.status}; server/discover: ${versions.join(', ')}).`,
        );
      }
    } else {
      await discardBody(discover);
      if (discover.status === 401 || discover.status === 403) return refused(discover);
    }
    const initialize = await context.present(token, initializeRequest());
    if (initialize === undefined) return finding('fail', 'The request with the token did not get an answer.');
    if (!initialize.ok) {
      await discardBody(initialize);
      if (initialize.status === 401 || initialize.status === 403) return refused(initialize);
      return finding(
        'fail',
        `The server answered neither server/discover (HTTP ${discover.status}) nor initialize (HTTP ${initialize.status}${errorOf(initialize)}) with the token: the checks that need an accepted token are skipped.`,
      );
    }
    const chosen = (await readRpcResult(initialize))?.['protocolVersion'];
    const protocolVersion = typeof chosen === 'string' ? chosen : LEGACY_PROTOCOL_VERSION;
    const sessionId = initialize.headers.get('mcp-session-id') ?? undefined;
    context.era = { kind: 'legacy', protocolVersion, ...(sessionId === undefined ? {} : { sessionId }) };
    context.tokenAccepted = true;
    await context.presentOnly(token, legacyMessage(context.era, 'notifications/initialized'));
    return finding(
      'pass',
      `The token in the Authorization header is accepted (HTTP ${initialize.status}; initialize: ${protocolVersion}).`,
    );
  },
};

function refused(response: Response) {
  return finding(
    'fail',
    `The token was refused (HTTP ${response.status}${errorOf(response)}): the checks that need an accepted token are skipped.`,
  );
}
