/**
 * Rules kept here: RFC 6750 2.2 and MCP "Access Token Usage": a token in a form-encoded body is not one an MCP
 * server accepts (the header is the only place); the server must not read one there.
 */
import type { ServerCheck } from '../doctor-check.js';
import { MCP_POST_HEADERS } from '../doctor-context.js';
import { REFERENCES } from '../references.js';
import { decoyToken, placementFinding } from './token-placement.js';

/**
 * No token read from a form body.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6750#section-2.2
 */
export const tokenBodyCheck: ServerCheck = {
  id: 'token.body',
  scope: 'server',
  reference: REFERENCES.tokenBody,
  async run(context) {
    if (!context.tokenAccepted) return undefined;
    const response = await context.send(context.server, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: MCP_POST_HEADERS.accept },
      body: new URLSearchParams({ access_token: decoyToken() }).toString(),
    });
    return placementFinding('in a form body', response, REFERENCES.tokenBody);
  },
};
