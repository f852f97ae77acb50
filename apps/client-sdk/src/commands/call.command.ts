import { authorizedFetchFor, openTokenStore } from '../authorization.js';
import { connectMcp, wireForRevision } from '../mcp-session.js';
import { UsageError, serverUrlArgument } from '../options.js';
import type { Output } from '../output.js';
import type { Command } from './command.js';

function parseArguments(json: string | undefined): Record<string, unknown> {
  if (json === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new UsageError(`the tool arguments must be a JSON object, e.g. '{"title":"hello"}'; got ${json}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UsageError('the tool arguments must be a JSON object');
  }
  return value as Record<string, unknown>;
}

/** Prints a tool result: text content as is, anything else as JSON. */
export function printToolResult(output: Output, content: readonly unknown[], structured: unknown): void {
  for (const item of content) {
    const block = item as { type?: unknown; text?: unknown };
    output.result(
      block.type === 'text' && typeof block.text === 'string' ? block.text : JSON.stringify(item),
    );
  }
  if (content.length === 0 && structured !== undefined) output.result(JSON.stringify(structured, null, 2));
}

/**
 * `portcullis call <server-url> <tool> [json-args]`: calls one tool; a 403 `insufficient_scope` on the way is
 * answered by a step-up authorization inside the authorized fetch.
 */
export const callCommand: Command = async ({ options, positionals, output, env }) => {
  const serverUrl = serverUrlArgument(positionals, 'call');
  const name = positionals[1];
  if (name === undefined)
    throw new UsageError('call needs a tool name: portcullis call <server-url> <tool> [json-args]');
  const args = parseArguments(positionals[2]);
  const authorizedFetch = authorizedFetchFor({
    serverUrl,
    options,
    output,
    store: openTokenStore(options, env),
  });
  const session = await connectMcp(serverUrl, authorizedFetch, wireForRevision(authorizedFetch.revision.id));
  try {
    const result = await session.client.callTool({ name, arguments: args });
    printToolResult(output, result.content, result.structuredContent);
    return result.isError === true ? 1 : 0;
  } finally {
    await session.close();
  }
};
