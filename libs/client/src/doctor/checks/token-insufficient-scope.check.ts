/**
 * Rules kept here: RFC 6750 3.1 and MCP "Runtime Insufficient Scope Errors": a request the token's scope does not
 * allow gets 403 with `error="insufficient_scope"` and the `scope` needed, so a client can step up; a correct server
 * refuses before the tool runs. Called only for the tool the person names (`stepUpTool`), in the server's era.
 */
import { finding, type ServerCheck } from '../doctor-check.js';
import { authChallenge } from '../doctor-context.js';
import { toolCallRequest } from '../mcp-messages.js';
import { REFERENCES } from '../references.js';

/**
 * The 403 `insufficient_scope` naming the scope needed.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#runtime-insufficient-scope-errors
 */
export const tokenInsufficientScopeCheck: ServerCheck = {
  id: 'token.insufficient_scope',
  scope: 'server',
  reference: REFERENCES.insufficientScope,
  async run(context) {
    const token = context.options.token;
    if (!context.tokenAccepted || token === undefined) return undefined;
    const tool = context.options.stepUpTool;
    if (tool === undefined) {
      return finding(
        'skip',
        'Give --step-up-tool with a tool this token may not call to check the 403 insufficient_scope answer.',
      );
    }
    const call = await context.presentOnly(token, toolCallRequest(context.era, tool));
    if (call === undefined) return finding('fail', 'The tool call did not get an answer.');
    const challenge = authChallenge(call);
    const error = challenge?.params['error'];
    const scope = challenge?.params['scope'];
    if (call.status === 403 && error === 'insufficient_scope' && scope) {
      return finding('pass', `Calling ${tool} gets 403 insufficient_scope naming scope="${scope}".`);
    }
    if (call.status === 403 && error === 'insufficient_scope') {
      return finding(
        'warn',
        `Calling ${tool} gets 403 insufficient_scope without the scope it needs: clients cannot step up.`,
      );
    }
    return finding(
      'fail',
      `Calling ${tool} got HTTP ${call.status}${error ? ` ${error}` : ''}, not 403 insufficient_scope: either the token may call it (name a tool it may not) or the server answers scope errors in a way clients cannot act on.`,
    );
  },
};
