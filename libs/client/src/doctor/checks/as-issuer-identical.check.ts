/**
 * Rules kept here:
 * - RFC 8414 3.3: the metadata's `issuer` MUST be identical to the issuer identifier the well-known URL was built
 *   from, here the resource metadata's `authorization_servers` entry; RFC 9207 2.4: the `iss` of authorization
 *   responses is compared with the recorded issuer by simple string comparison. `https://as.example` and
 *   `https://as.example/` are one URL to a lenient client (and to this SDK, RFC 3986 6.2.3), but not to one that
 *   compares byte for byte, which refuses the server before the browser opens.
 * - The most reported MCP authorization failure of 2026 (public MCP issue trackers): a trailing slash on one side
 *   only (modelcontextprotocol/python-sdk#1919, anomalyco/opencode#50036, expo/expo#49053,
 *   NousResearch/hermes-agent#95508, openai/codex#37373, github/copilot-cli#4606).
 *
 * @see https://github.com/modelcontextprotocol/python-sdk/issues/1919
 * @see https://github.com/expo/expo/issues/49053
 */
import { finding, type AuthorizationServerCheck } from '../doctor-check.js';
import { REFERENCES } from '../references.js';

/**
 * The issuer byte-equal to the resource metadata's entry.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8414#section-3.3
 */
export const asIssuerIdenticalCheck: AuthorizationServerCheck = {
  id: 'as.issuer_identical',
  scope: 'authorization-server',
  reference: REFERENCES.asIssuer,
  run(_context, server) {
    const published = server.metadata?.issuer;
    if (published === undefined) return undefined;
    return published === server.issuer
      ? finding(
          'pass',
          `issuer "${published}" is the resource metadata's authorization_servers entry, byte for byte.`,
        )
      : finding(
          'fail',
          `The resource metadata lists "${server.issuer}" but ${server.metadataUrl ?? 'the metadata'} says issuer "${published}": clients that compare byte for byte (RFC 8414 3.3, RFC 9207 2.4) refuse the server; publish one spelling in both.`,
        );
  },
};
