import { authorizedFetchFor, openTokenStore } from '../authorization.js';
import { connectMcp, wireForRevision } from '../mcp-session.js';
import { serverUrlArgument } from '../options.js';
import type { Command } from './command.js';

/**
 * `portcullis login <server-url>`: connects to the server, which runs the authorization flow when it asks for it,
 * and reports the stored authorization.
 */
export const loginCommand: Command = async ({ options, positionals, output, env }) => {
  const serverUrl = serverUrlArgument(positionals, 'login');
  const authorizedFetch = authorizedFetchFor({
    serverUrl,
    options,
    output,
    store: openTokenStore(options, env),
  });
  if (options.force) await authorizedFetch.signOut();
  output.info(`Connecting to ${authorizedFetch.resource} (revision ${authorizedFetch.revision.id})`);
  const session = await connectMcp(serverUrl, authorizedFetch, wireForRevision(authorizedFetch.revision.id));
  await session.close();
  const tokens = await authorizedFetch.tokens();
  if (tokens === undefined) {
    output.result(`${authorizedFetch.resource} did not ask for authorization; nothing stored.`);
    return 0;
  }
  const expiry =
    tokens.expiresAt === undefined
      ? ''
      : `, access token valid until ${new Date(tokens.expiresAt).toISOString()}`;
  output.result(
    `Logged in to ${tokens.resource} as client ${tokens.clientId} of ${tokens.issuer} ` +
      `(scope: ${tokens.scope.join(' ') || '(none)'}${expiry}${tokens.hasRefreshToken ? ', refreshable' : ''}).`,
  );
  return 0;
};
