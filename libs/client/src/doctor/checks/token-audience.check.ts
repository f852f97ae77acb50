/**
 * Rules kept here: MCP "Token Audience Binding and Validation" and RFC 8707: a server MUST refuse a token issued for
 * another resource (401), which only a person holding such a token can show (`wrongAudienceToken`).
 */
import { finding, type ServerCheck } from '../doctor-check.js';
import { authChallenge } from '../doctor-context.js';
import { probeRequest } from '../mcp-messages.js';
import { REFERENCES } from '../references.js';

/**
 * A token for another resource refused.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#token-audience-binding-and-validation
 */
export const tokenAudienceCheck: ServerCheck = {
  id: 'token.audience',
  scope: 'server',
  reference: REFERENCES.audience,
  async run(context) {
    if (!context.tokenAccepted) return undefined;
    const other = context.options.wrongAudienceToken;
    if (other === undefined) {
      return finding(
        'skip',
        'Give --wrong-audience-token with a token issued for another resource to check that it is refused.',
      );
    }
    const response = await context.presentOnly({ accessToken: other }, probeRequest(context.era));
    if (response === undefined) return finding('fail', 'The request did not get an answer.');
    const error = authChallenge(response)?.params['error'];
    return response.status === 401
      ? finding('pass', `A token for another resource is refused (401${error ? ` ${error}` : ''}).`)
      : finding(
          'fail',
          `A token for another resource got HTTP ${response.status}, not 401: the server does not check the audience.`,
        );
  },
};
