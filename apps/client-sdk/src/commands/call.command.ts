import {
  callToolWithUrlElicitation,
  handleUrlElicitations,
  openSystemBrowser,
  URL_ELICITATION_CAPABILITY,
  UrlElicitationNotCompletedError,
  type UrlElicitationHandler,
} from '@portcullis/client';
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

/**
 * `text` without what a terminal would act on: escape sequences and other control characters (a server's text could
 * hide or rewrite the lines around it), newlines and tabs kept.
 */
export function terminalSafe(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '\uFFFD');
}

/** Prints a tool result: text content as is (without control characters), anything else as JSON. */
export function printToolResult(output: Output, content: readonly unknown[], structured: unknown): void {
  for (const item of content) {
    const block = item as { type?: unknown; text?: unknown };
    output.result(
      block.type === 'text' && typeof block.text === 'string'
        ? terminalSafe(block.text)
        : JSON.stringify(item),
    );
  }
  if (content.length === 0 && structured !== undefined) output.result(JSON.stringify(structured, null, 2));
}

/**
 * How the command line answers a URL-mode elicitation (MCP 2025-11-25): it shows the message and the whole URL, opens
 * it in the browser only when the person says so, and calls again once they say they are done there. With nobody at
 * the terminal it only shows the URL, and the call ends (exit 1) for the person to open it and run the command again.
 */
function urlElicitationAtTerminal(
  output: Output,
  ask: ((question: string) => Promise<string | undefined>) | undefined,
  headless: boolean,
): UrlElicitationHandler {
  return async ({ message, url }) => {
    // The server's words, on one line, bounded; then the whole URL, which the URL parser has already encoded.
    const said = terminalSafe(message.replace(/[\r\n\t]+/g, ' ')).slice(0, 300);
    output.info(`  · ${said || 'The server asks you to visit a page first.'}\n    ${url.href}`);
    if (!ask) return 'declined';
    if (!headless) {
      const open = await ask(`  Open ${url.host} in your browser? [y/N] `);
      if (/^\s*y(es)?\s*$/i.test(open ?? '')) {
        await openSystemBrowser(url.href).catch(() =>
          output.info('  · The browser did not open; visit the URL above.'),
        );
      }
    }
    const done = await ask('  Press Enter once you have finished there (n to stop): ');
    return done === undefined || /^\s*no?\s*$/i.test(done) ? 'declined' : 'completed';
  };
}

/**
 * `portcullis call <server-url> <tool> [json-args]`: calls one tool; a 403 `insufficient_scope` on the way is
 * answered by a step-up authorization inside the authorized fetch, and a URL-mode elicitation (the server needs the
 * person to connect an account first) by {@link urlElicitationAtTerminal}.
 */
export const callCommand: Command = async ({ options, positionals, output, env, ask }) => {
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
  const session = await connectMcp(
    serverUrl,
    authorizedFetch,
    wireForRevision(authorizedFetch.revision.id),
    URL_ELICITATION_CAPABILITY,
  );
  const elicitation = urlElicitationAtTerminal(output, ask, options.headless === true);
  // Asked as a request (a 2025-era session, a 2026-07-28 input-required result) or as the -32042 error.
  handleUrlElicitations(session.client, elicitation);
  try {
    const result = await callToolWithUrlElicitation(session.client, { name, arguments: args }, elicitation);
    printToolResult(output, result.content, result.structuredContent);
    return result.isError === true ? 1 : 0;
  } catch (error) {
    if (!(error instanceof UrlElicitationNotCompletedError)) throw error;
    output.info(
      `  · ${name} needs you at ${error.elicitations.map((each) => each.url.host).join(', ')} first: open the URL above, then run the command again.`,
    );
    return 1;
  } finally {
    await session.close();
  }
};
