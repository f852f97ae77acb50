/**
 * Where each rule `portcullis doctor` checks is written: a section of the MCP authorization specification, an RFC
 * section, or another standard. Each report line carries one.
 */
import type { CheckReference } from './doctor-check.js';

/** The revision whose authorization chapter the MCP references link to, unless a rule is newer. */
const MCP_REVISION = '2025-11-25';

const mcp = (section: string, anchor: string, revision: string = MCP_REVISION): CheckReference => ({
  label: `MCP authorization, ${section}`,
  url: `https://modelcontextprotocol.io/specification/${revision}/basic/authorization#${anchor}`,
});

const rfc = (rfcNumber: number, section: string): CheckReference => ({
  label: `RFC ${rfcNumber} ${section}`,
  url: `https://www.rfc-editor.org/rfc/rfc${rfcNumber}#section-${section}`,
});

/** Every reference a check names. */
export const REFERENCES = {
  challenge: rfc(9728, '5.1'),
  scopeSelection: mcp('Scope Selection Strategy', 'scope-selection-strategy'),
  prmDiscovery: mcp(
    'Protected Resource Metadata Discovery Requirements',
    'protected-resource-metadata-discovery-requirements',
  ),
  prmResource: rfc(9728, '3.3'),
  prmWellKnown: rfc(9728, '3.1'),
  asDiscovery: mcp('Authorization Server Metadata Discovery', 'authorization-server-metadata-discovery'),
  asIssuer: rfc(8414, '3.3'),
  pkce: mcp('Authorization Code Protection', 'authorization-code-protection'),
  iss: rfc(9207, '2'),
  registration: mcp('Client Registration', 'client-registration'),
  clientIdMetadataDocuments: mcp('Client ID Metadata Documents', 'client-id-metadata-documents'),
  refreshTokens: mcp('Refresh Tokens', 'refresh-tokens', '2026-07-28'),
  communicationSecurity: mcp('Communication Security', 'communication-security'),
  cors: { label: 'Fetch Standard, CORS protocol', url: 'https://fetch.spec.whatwg.org/#http-cors-protocol' },
  tokenUsage: mcp('Access Token Usage', 'access-token-usage'),
  tokenQuery: rfc(6750, '2.3'),
  tokenBody: rfc(6750, '2.2'),
  audience: mcp('Token Audience Binding and Validation', 'token-audience-binding-and-validation'),
  insufficientScope: mcp('Runtime Insufficient Scope Errors', 'runtime-insufficient-scope-errors'),
} as const satisfies Record<string, CheckReference>;
