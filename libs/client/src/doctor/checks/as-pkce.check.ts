/**
 * Rules kept here: MCP "Authorization Code Protection": clients MUST use PKCE with `S256` and MUST refuse an
 * authorization server whose metadata does not list it in `code_challenge_methods_supported`.
 */
import { PKCE_METHOD_S256 } from '@portcullis/protocol';
import { finding, type AuthorizationServerCheck } from '../doctor-check.js';
import { REFERENCES } from '../references.js';

/**
 * `S256` among the PKCE methods.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#authorization-code-protection
 */
export const asPkceCheck: AuthorizationServerCheck = {
  id: 'as.pkce',
  scope: 'authorization-server',
  reference: REFERENCES.pkce,
  run(_context, { issuer, metadata }) {
    if (metadata === undefined) return undefined;
    const methods = metadata.code_challenge_methods_supported;
    return methods?.includes(PKCE_METHOD_S256)
      ? finding('pass', `${issuer} supports PKCE with S256.`)
      : finding(
          'fail',
          `${issuer} does not list S256 in code_challenge_methods_supported (${methods?.join(', ') ?? 'absent'}): MCP clients must refuse it.`,
        );
  },
};
