/**
 * Rules kept here: RFC 9728 5.1 and MCP "Authorization Server Location" / "Protected Resource Metadata Discovery
 * Requirements": a protected MCP server answers a request without a token with 401, which starts authorization.
 */
import { finding, type ServerCheck } from '../doctor-check.js';
import { REFERENCES } from '../references.js';

/**
 * The 401 without a token.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9728#section-5.1
 */
export const challengeStatusCheck: ServerCheck = {
  id: 'challenge.status',
  scope: 'server',
  reference: REFERENCES.challenge,
  run({ unauthenticated }) {
    if (unauthenticated === undefined) return undefined;
    return unauthenticated.status === 401
      ? finding('pass', 'An MCP request without a token gets 401.')
      : finding(
          'fail',
          `An MCP request without a token got HTTP ${unauthenticated.status}, not 401: the server does not ask for authorization.`,
        );
  },
};
