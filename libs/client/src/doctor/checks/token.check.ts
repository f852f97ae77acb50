/**
 * Rules kept here: MCP "Access Token Usage": how a server treats tokens can only be seen with one; without, the
 * token checks are skipped, and the report says how to give one (a stored token is better than `--token`, which
 * shows in the process list). A token is never sent over plain http to a host that is not loopback (RFC 6750
 * Section 5.3): the check fails instead.
 */
import { finding, type ServerCheck } from '../doctor-check.js';
import { REFERENCES } from '../references.js';

/**
 * Says that the token checks are skipped when no token was given.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#access-token-usage
 */
export const tokenCheck: ServerCheck = {
  id: 'token',
  scope: 'server',
  reference: REFERENCES.tokenUsage,
  run({ options }) {
    if (options.tokenWithheld === true) {
      return finding(
        'fail',
        'A token was given, but the server is reached over plain http on a host that is not loopback: no token was sent (it would travel in clear text). Use https.',
      );
    }
    if (options.token !== undefined) return undefined;
    return finding(
      'skip',
      'No token: give --token (or run `portcullis login` first) to check how the server treats tokens.',
    );
  },
};
