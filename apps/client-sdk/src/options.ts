/**
 * The command line's arguments: one `node:util` `parseArgs` table for every command, and the usage text.
 */
import { parseArgs } from 'node:util';
import { REVISIONS, isRevisionId, type RevisionId } from '@portcullis/revisions';

/** A mistake in the command line itself: printed with the usage, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** The options every command understands. */
export interface GlobalOptions {
  readonly revision: RevisionId | undefined;
  readonly clientId: string | undefined;
  readonly clientSecret: string | undefined;
  readonly issuer: string | undefined;
  readonly clientMetadataUrl: string | undefined;
  readonly headless: boolean;
  readonly redirectUri: string | undefined;
  readonly store: string | undefined;
  readonly force: boolean;
  readonly all: boolean;
  readonly quiet: boolean;
  readonly help: boolean;
}

/** A parsed command line. */
export interface ParsedCommandLine {
  readonly command: string | undefined;
  readonly positionals: readonly string[];
  readonly options: GlobalOptions;
}

export const USAGE = `Usage: portcullis <command> [options]

Commands:
  login <server-url>                     authorize this client for an MCP server (opens the browser)
  tools <server-url>                     list the server's tools
  call <server-url> <tool> [json-args]   call a tool, stepping up authorization when the server asks
  tokens list                            show stored tokens (never their values)
  tokens logout [<server-url>] [--all]   forget the tokens of a server (or of every server)
  conformance <server-url>               act as the MCP conformance suite's client (reads
                                         MCP_CONFORMANCE_SCENARIO and MCP_CONFORMANCE_CONTEXT)

Options:
  --revision <id>             authorization rules to follow: ${REVISIONS.join(' or ')} (default: latest)
  --client-id <id>            a client ID registered with the authorization server
  --client-secret <secret>    its secret, for a confidential client
  --issuer <url>              the authorization server the client ID belongs to (default: the server's first)
  --client-metadata-url <url> this client's client ID metadata document (an https URL)
  --headless                  do not open a browser: follow the authorization redirect without a person
  --redirect-uri <uri>        the redirect URI to use with --headless (default http://127.0.0.1/callback)
  --store <file>              the encrypted token store (default: $PORTCULLIS_HOME/tokens.json,
                              PORTCULLIS_HOME defaulting to ~/.portcullis); key from PORTCULLIS_TOKEN_KEY or
                              a key file beside the store
  --force                     login: forget stored tokens first
  --quiet                     print no progress lines
  -h, --help                  show this help
`;

/**
 * Parses the arguments after `portcullis`. Throws {@link UsageError} for unknown options or a bad revision.
 */
export function parseCommandLine(argv: readonly string[]): ParsedCommandLine {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        revision: { type: 'string' },
        'client-id': { type: 'string' },
        'client-secret': { type: 'string' },
        issuer: { type: 'string' },
        'client-metadata-url': { type: 'string' },
        headless: { type: 'boolean', default: false },
        'redirect-uri': { type: 'string' },
        store: { type: 'string' },
        force: { type: 'boolean', default: false },
        all: { type: 'boolean', default: false },
        quiet: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  if (values.revision !== undefined && !isRevisionId(values.revision)) {
    throw new UsageError(`--revision must be one of ${REVISIONS.join(', ')}, not "${values.revision}"`);
  }
  if (values['client-secret'] !== undefined && values['client-id'] === undefined) {
    throw new UsageError('--client-secret needs --client-id');
  }
  const [command, ...rest] = positionals;
  return {
    command,
    positionals: rest,
    options: {
      revision: values.revision as RevisionId | undefined,
      clientId: values['client-id'],
      clientSecret: values['client-secret'],
      issuer: values.issuer,
      clientMetadataUrl: values['client-metadata-url'],
      headless: values.headless,
      redirectUri: values['redirect-uri'],
      store: values.store,
      force: values.force,
      all: values.all,
      quiet: values.quiet,
      help: values.help,
    },
  };
}

/** The server URL argument of a command, checked to be an absolute http(s) URL. */
export function serverUrlArgument(positionals: readonly string[], command: string): string {
  const value = positionals[0];
  if (value === undefined)
    throw new UsageError(`${command} needs the MCP server URL, e.g. http://localhost:4100/mcp`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`"${value}" is not a URL; give the MCP server URL, e.g. http://localhost:4100/mcp`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`the server URL must be http(s): ${value}`);
  return value;
}
