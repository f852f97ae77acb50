import { authorizedFetchFor, openTokenStore } from '../authorization.js';
import { connectMcp, wireForRevision } from '../mcp-session.js';
import { serverUrlArgument } from '../options.js';
import type { Command } from './command.js';

/** `portcullis tools <server-url>`: lists the server's tools and their required arguments. */
export const toolsCommand: Command = async ({ options, positionals, output, env }) => {
  const serverUrl = serverUrlArgument(positionals, 'tools');
  const authorizedFetch = authorizedFetchFor({
    serverUrl,
    options,
    output,
    store: openTokenStore(options, env),
  });
  const session = await connectMcp(serverUrl, authorizedFetch, wireForRevision(authorizedFetch.revision.id));
  try {
    const { tools } = await session.client.listTools();
    if (tools.length === 0) output.result('(no tools)');
    for (const tool of tools) {
      const required = (tool.inputSchema as { required?: unknown }).required;
      const args = Array.isArray(required) && required.length > 0 ? ` (${required.join(', ')})` : '';
      output.result(`${tool.name}${args}${tool.description === undefined ? '' : `  ${tool.description}`}`);
    }
    return 0;
  } finally {
    await session.close();
  }
};
