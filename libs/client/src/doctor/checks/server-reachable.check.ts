/**
 * Rules kept here:
 * - RFC 9728 5.1: an MCP request without a token is what reveals the server's challenge, so it is the first request.
 *   It is a 2026-07-28 `server/discover` (MCP 2026-07-28 "Versioning": stateless requests, no handshake); a server
 *   that answers it with something other than 401 gets the 2025 `initialize` too, and its 401, if any, is the one
 *   the next checks read (a 2025-era server may refuse the 2026 request before it asks for a token).
 * - A server that does not answer ends the run: nothing else can be checked.
 */
import { discardBody } from '../../http/http.js';
import { finding, type ServerCheck } from '../doctor-check.js';
import { MCP_POST_HEADERS, describeFailure } from '../doctor-context.js';
import { discoverRequest, initializeRequest } from '../mcp-messages.js';
import { REFERENCES } from '../references.js';

/**
 * Sends the MCP request without a token; reports only a server that does not answer.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9728#section-5.1
 */
export const serverReachableCheck: ServerCheck = {
  id: 'server.reachable',
  scope: 'server',
  reference: REFERENCES.challenge,
  async run(context) {
    const discover = discoverRequest();
    let response: Response;
    try {
      response = await context.fetch(context.server, {
        method: 'POST',
        headers: { ...MCP_POST_HEADERS, ...discover.headers },
        body: discover.body,
      });
      await discardBody(response);
    } catch (error) {
      context.halted = true;
      return finding('fail', `${context.server} did not answer: ${describeFailure(error)}.`);
    }
    if (response.status !== 401) {
      const legacy = await context.sendMcp(initializeRequest());
      if (legacy?.status === 401) response = legacy;
    }
    context.unauthenticated = response;
    return undefined;
  },
};
