/**
 * Rules kept here: RFC 6750 2.3 and MCP "Access Token Usage": access tokens MUST NOT be in the URI query string,
 * where they end up in logs; the server must not read one there (see `token-placement.ts` for how this is seen
 * without sending a live token). The probe is the server's own request, in the era `token.accepted` found.
 */
import type { ServerCheck } from '../doctor-check.js';
import { probeRequest } from '../mcp-messages.js';
import { REFERENCES } from '../references.js';
import { decoyToken, placementFinding } from './token-placement.js';

/**
 * No token read from the query string.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6750#section-2.3
 */
export const tokenQueryCheck: ServerCheck = {
  id: 'token.query',
  scope: 'server',
  reference: REFERENCES.tokenQuery,
  async run(context) {
    if (!context.tokenAccepted) return undefined;
    const url = new URL(context.server);
    url.searchParams.set('access_token', decoyToken());
    const response = await context.sendMcp(probeRequest(context.era), url.href);
    return placementFinding('in the query string', response, REFERENCES.tokenQuery);
  },
};
