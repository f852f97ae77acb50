/**
 * Rules kept here: MCP "Scope Selection Strategy": the challenge's `scope` is what a client asks for first; without
 * it clients fall back to the metadata's `scopes_supported`, or ask for no scope.
 */
import { finding, type ServerCheck } from '../doctor-check.js';
import { REFERENCES } from '../references.js';

/**
 * `scope` in the challenge.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#scope-selection-strategy
 */
export const challengeScopeCheck: ServerCheck = {
  id: 'challenge.scope',
  scope: 'server',
  reference: REFERENCES.scopeSelection,
  run({ challenge }) {
    if (challenge === undefined) return undefined;
    const scope = challenge.params['scope'];
    return scope === undefined || scope.trim() === ''
      ? finding(
          'warn',
          'The challenge names no scope: clients fall back to scopes_supported, or ask for none.',
        )
      : finding('pass', `scope="${scope}".`);
  },
};
