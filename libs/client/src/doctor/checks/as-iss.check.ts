/**
 * Rules kept here:
 * - RFC 9207 2 and 3, MCP 2026-07-28 "Authorization Response Validation": an authorization server that puts `iss`
 *   in its authorization responses says so with `authorization_response_iss_parameter_supported: true`; only then
 *   must clients require it, so an unadvertised `iss` protects no one from mix-up attacks. MCP asks authorization
 *   servers to do so (SHOULD; modelcontextprotocol/modelcontextprotocol#2468, SEP-2468): a warning when missing.
 * - What operators get wrong (public MCP issue trackers, 2026): the metadata field left out although `iss` is sent,
 *   or both missing (PrefectHQ/fastmcp#4432, stalwartlabs/stalwart#3183).
 *
 * @see https://github.com/PrefectHQ/fastmcp/issues/4432
 */
import { finding, type AuthorizationServerCheck } from '../doctor-check.js';
import { REFERENCES } from '../references.js';

/**
 * `authorization_response_iss_parameter_supported` advertised.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9207#section-3
 */
export const asIssCheck: AuthorizationServerCheck = {
  id: 'as.iss',
  scope: 'authorization-server',
  reference: REFERENCES.iss,
  run(_context, { issuer, metadata }) {
    if (metadata === undefined) return undefined;
    return metadata['authorization_response_iss_parameter_supported'] === true
      ? finding('pass', `${issuer} puts iss in authorization responses.`)
      : finding(
          'warn',
          `${issuer} does not say it sends iss in authorization responses (authorization_response_iss_parameter_supported): clients cannot detect mix-up attacks.`,
        );
  },
};
