import type { StoredTokenSet } from '@portcullis/client';
import { canonicalizeResourceUri } from '@portcullis/protocol';
import { openTokenStore, tokenStorePath } from '../authorization.js';
import { UsageError, serverUrlArgument } from '../options.js';
import type { Command } from './command.js';

function describeExpiry(expiresAt: number | undefined, now: number): string {
  if (expiresAt === undefined) return 'no expiry given';
  const seconds = Math.round((expiresAt - now) / 1000);
  return seconds <= 0 ? `expired ${new Date(expiresAt).toISOString()}` : `expires in ${seconds} s`;
}

/** The token's type, and for a DPoP-bound one that its key is in the store (never the key itself). */
function describeBinding(entry: StoredTokenSet): string {
  const type = entry.tokenType.toLowerCase() === 'bearer' ? 'Bearer' : entry.tokenType;
  if (entry.proofKey === undefined || type === 'Bearer') return `token type: ${type}`;
  return `token type: ${type} (bound to a key kept encrypted in the store)`;
}

/**
 * `portcullis tokens list` and `portcullis tokens logout [<server-url>] [--all]`. Token values are never printed.
 */
export const tokensCommand: Command = async ({ options, positionals, output, env }) => {
  const [action, ...rest] = positionals;
  const store = openTokenStore(options, env);
  if (action === 'list') {
    const entries = await store.listTokens();
    if (entries.length === 0) output.result(`No stored tokens (${tokenStorePath(options, env)}).`);
    const now = Date.now();
    for (const entry of entries) {
      output.result(
        `${entry.resource}  issuer ${entry.issuer}  client ${entry.clientId}  scope ${entry.scope.join(' ') || '(none)'}  ` +
          `${describeExpiry(entry.expiresAt, now)}  refresh token: ${entry.refreshToken === undefined ? 'no' : 'yes'}  ` +
          describeBinding(entry),
      );
    }
    return 0;
  }
  if (action === 'logout') {
    if (options.all) {
      output.result(`Forgot ${await store.deleteTokens({})} token set(s).`);
      return 0;
    }
    const resource = canonicalizeResourceUri(serverUrlArgument(rest, 'tokens logout'));
    output.result(`Forgot ${await store.deleteTokens({ resource })} token set(s) for ${resource}.`);
    return 0;
  }
  throw new UsageError('tokens needs "list" or "logout"');
};
