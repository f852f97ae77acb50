/**
 * Rules kept here: MCP "Scope Selection Strategy": without a `scope` in the challenge, clients ask for the metadata's
 * `scopes_supported`; without either, for no scope.
 */
import { finding, type ServerCheck } from '../doctor-check.js';
import { REFERENCES } from '../references.js';

/**
 * `scopes_supported` in the metadata clients use.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#scope-selection-strategy
 */
export const prmScopesSupportedCheck: ServerCheck = {
  id: 'prm.scopes_supported',
  scope: 'server',
  reference: REFERENCES.scopeSelection,
  run({ usedResourceMetadata }) {
    if (usedResourceMetadata === undefined) return undefined;
    const scopes = usedResourceMetadata.metadata.scopes_supported;
    return scopes === undefined || scopes.length === 0
      ? finding('warn', 'No scopes_supported: a client without a scope in the challenge asks for no scope.')
      : finding('pass', `scopes_supported: ${scopes.join(' ')}.`);
  },
};
