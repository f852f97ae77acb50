/**
 * The command line's arguments: one `node:util` `parseArgs` table for every command, and the usage text.
 */
import { parseArgs } from 'node:util';
import type { ClientAssertionKey } from '@portcullis/client';
import type { IdJagStrategyOptions } from '@portcullis/extension-enterprise-managed-authorization';
import type { WorkloadIdentityStrategyOptions } from '@portcullis/extension-workload-identity';
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
  /** `--private-key <file>`: the client's private key (PEM PKCS#8 or a private JWK), for `private_key_jwt`. */
  readonly privateKeyFile: string | undefined;
  /** `--key-id <kid>`: the `kid` of its assertions. */
  readonly keyId: string | undefined;
  /** The key of `--private-key`, once read (by the command line before the command runs). */
  readonly clientKey?: ClientAssertionKey | undefined;
  /** `--client-credentials`: obtain tokens with the client credentials grant (no user, no browser). */
  readonly clientCredentials: boolean;
  /** `--id-jag`: obtain tokens with an Identity Assertion JWT Authorization Grant from the enterprise IdP (SEP-990). */
  readonly idJag: boolean;
  /** `--idp-token-endpoint <url>`: the IdP token endpoint the ID token is exchanged at (RFC 8693). */
  readonly idpTokenEndpoint: string | undefined;
  /** `--id-token <file-or-value>`: the user's ID token from the IdP, or a file holding it. */
  readonly idTokenSource: string | undefined;
  /** `--idp-client-id <id>`: the client's ID at the IdP (the ID token's audience). */
  readonly idpClientId: string | undefined;
  /** `--idp-client-secret <secret>`: its secret at the IdP, for `client_secret_basic` there. */
  readonly idpClientSecret: string | undefined;
  /** What `--id-jag` exchanges, once the ID token is read (by the command line before the command runs). */
  readonly idJagClient?: IdJagStrategyOptions | undefined;
  /** `--workload-token <file>`: the workload's JWT (MCP SEP-1933), read from this file for every token request. */
  readonly workloadTokenFile: string | undefined;
  /** Where the workload identity strategy reads the workload JWT from: `--workload-token`, or the conformance context. */
  readonly workloadToken?: WorkloadIdentityStrategyOptions | undefined;
  /**
   * DPoP (RFC 9449, MCP SEP-1932) for servers that accept it, with authorization servers that offer it; `--no-dpop`
   * turns it off (Bearer tokens only).
   */
  readonly dpop: boolean;
  /** doctor: `--token <t>`, the access token to check the server with. */
  readonly token: string | undefined;
  /** doctor: `--wrong-audience-token <t>`, a token for another resource, which must be refused. */
  readonly wrongAudienceToken: string | undefined;
  /** doctor: `--step-up-tool <name>`, a tool the token may not call, for the 403 `insufficient_scope` check. */
  readonly stepUpTool: string | undefined;
  /** doctor: `--origin <origin>`, the web origin of the browser clients the server serves, for the CORS check. */
  readonly origin: string | undefined;
  /** doctor: `--json`, the report as JSON. */
  readonly json: boolean;
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
  doctor <server-url>                    check the server's authorization from outside: its 401
                                         challenge, Protected Resource Metadata, authorization
                                         servers, and with a token how it treats tokens; one line
                                         per check, exit status 1 on any failure
  conformance <server-url>               act as the MCP conformance suite's client (reads
                                         MCP_CONFORMANCE_SCENARIO and MCP_CONFORMANCE_CONTEXT)

Options:
  --revision <id>             authorization rules to follow: ${REVISIONS.join(', ')} (default: latest)
  --client-id <id>            a client ID registered with the authorization server
  --client-secret <secret>    its secret, for a confidential client
  --issuer <url>              the authorization server the client ID belongs to (default: the server's first)
  --client-metadata-url <url> this client's client ID metadata document (an https URL)
  --private-key <file>        authenticate with private_key_jwt (RFC 7523): a PEM PKCS#8 private key or a
                              private JWK (ES256, ES384, RS256, PS256 or EdDSA, from the key); with --client-id
                              the key registered for that client, without it the key to register dynamically
  --key-id <kid>              the kid of the key (default: the JWK's kid, else none)
  --client-credentials        obtain tokens with the client credentials grant (MCP SEP-1046), as the
                              confidential client --client-id/--client-secret; no user, no browser
  --id-jag                    enterprise-managed authorization (MCP SEP-990): exchange the user's ID token at
                              the enterprise IdP for an ID-JAG (RFC 8693) and redeem it with the jwt-bearer
                              grant (RFC 7523) as --client-id/--client-secret (or --private-key); no browser
  --idp-token-endpoint <url>  with --id-jag: the IdP's token endpoint (https; http only on loopback)
  --id-token <file-or-value>  with --id-jag: the user's ID token from the IdP, or a file holding it (a file
                              keeps it out of the process list)
  --idp-client-id <id>        with --id-jag: the client's ID at the IdP (the ID token's audience)
  --idp-client-secret <s>     with --id-jag: its secret at the IdP (client_secret_basic); without it the
                              IdP client ID goes in the request body
  --workload-token <file>     workload identity federation (MCP SEP-1933): present the workload's JWT (a
                              Kubernetes service account token, a SPIFFE JWT-SVID, a cloud identity token)
                              from this file, read again for every request, with the jwt-bearer grant
                              (RFC 7523), as --client-id (the client the server's trust rule names; no
                              secret); no user, no browser, and a refusal is final (no other grant is tried)
  --no-dpop                   do not use DPoP (RFC 9449): by default, for a server that accepts it (its resource
                              metadata or its 401 challenge says so) where the authorization server offers it,
                              tokens are bound to a key made for the authorization (kept encrypted in the
                              store with them) and every request carries a proof of it; with this, Bearer only
  --token <token>             doctor: the access token to check with (default: the one stored by login)
  --wrong-audience-token <t>  doctor: a token issued for another resource; the server must refuse it (the
                              server under test sees it: use a short-lived token of a test resource)
  --step-up-tool <name>       doctor: a tool the token's scope does not allow; calling it must get 403
                              insufficient_scope (a correct server refuses before the tool runs; a server
                              that lets it runs it)
  --origin <origin>           doctor: the web origin of browser clients the server serves, for the CORS
                              check (default http://localhost:6274, the MCP Inspector's)
  --json                      doctor: print the report as JSON
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
        'private-key': { type: 'string' },
        'key-id': { type: 'string' },
        'client-credentials': { type: 'boolean', default: false },
        'id-jag': { type: 'boolean', default: false },
        'idp-token-endpoint': { type: 'string' },
        'id-token': { type: 'string' },
        'idp-client-id': { type: 'string' },
        'idp-client-secret': { type: 'string' },
        'workload-token': { type: 'string' },
        'no-dpop': { type: 'boolean', default: false },
        token: { type: 'string' },
        'wrong-audience-token': { type: 'string' },
        'step-up-tool': { type: 'string' },
        origin: { type: 'string' },
        json: { type: 'boolean', default: false },
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
  if (values['client-credentials'] && values['client-id'] === undefined) {
    throw new UsageError('--client-credentials needs --client-id (and its --client-secret)');
  }
  checkWorkloadTokenOptions(values);
  checkIdJagOptions(values);
  if (values['key-id'] !== undefined && values['private-key'] === undefined) {
    throw new UsageError('--key-id needs --private-key');
  }
  if (values['private-key'] !== undefined && values['client-secret'] !== undefined) {
    throw new UsageError(
      '--private-key and --client-secret are two ways to authenticate the client; give one',
    );
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
      privateKeyFile: values['private-key'],
      keyId: values['key-id'],
      clientCredentials: values['client-credentials'],
      idJag: values['id-jag'],
      idpTokenEndpoint: values['idp-token-endpoint'],
      idTokenSource: values['id-token'],
      idpClientId: values['idp-client-id'],
      idpClientSecret: values['idp-client-secret'],
      workloadTokenFile: values['workload-token'],
      ...(values['workload-token'] === undefined
        ? {}
        : { workloadToken: { tokenFile: values['workload-token'] } }),
      dpop: !values['no-dpop'],
      token: values.token,
      wrongAudienceToken: values['wrong-audience-token'],
      stepUpTool: values['step-up-tool'],
      origin: values.origin,
      json: values.json,
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

/** `--id-jag` and the options only it uses: each needs it, and it needs the IdP, the ID token and a client. */
function checkIdJagOptions(values: Readonly<Record<string, string | boolean | undefined>>): void {
  const idJagOnly = ['idp-token-endpoint', 'id-token', 'idp-client-id', 'idp-client-secret'];
  if (!values['id-jag']) {
    const stray = idJagOnly.find((name) => values[name] !== undefined);
    if (stray !== undefined) throw new UsageError(`--${stray} needs --id-jag`);
    return;
  }
  if (values['client-credentials']) {
    throw new UsageError('--id-jag and --client-credentials are two ways to obtain tokens; give one');
  }
  if (values['client-id'] === undefined) {
    throw new UsageError(
      '--id-jag needs --client-id (and its --client-secret or --private-key): the client registered with the MCP authorization server',
    );
  }
  if (values['idp-token-endpoint'] === undefined || values['id-token'] === undefined) {
    throw new UsageError('--id-jag needs --idp-token-endpoint and --id-token');
  }
  if (values['idp-client-secret'] !== undefined && values['idp-client-id'] === undefined) {
    throw new UsageError('--idp-client-secret needs --idp-client-id');
  }
}

/**
 * `--workload-token`: one way to obtain tokens, so not with `--id-jag` or `--client-credentials`; the workload's JWT
 * is its only credential, so no `--client-secret` or `--private-key`; and the SDK names the client with
 * `--client-id` (the trust rule's client).
 */
function checkWorkloadTokenOptions(values: Readonly<Record<string, string | boolean | undefined>>): void {
  if (values['workload-token'] === undefined) return;
  if (values['workload-token'] === '') throw new UsageError('--workload-token needs a file');
  if (values['id-jag'] || values['client-credentials']) {
    throw new UsageError(
      `--workload-token and --${values['id-jag'] ? 'id-jag' : 'client-credentials'} are two ways to obtain tokens; give one`,
    );
  }
  if (values['client-secret'] !== undefined || values['private-key'] !== undefined) {
    throw new UsageError(
      '--workload-token takes no --client-secret or --private-key: the workload JWT is the only credential',
    );
  }
  if (values['client-id'] === undefined) {
    throw new UsageError(
      '--workload-token needs --client-id: the client the authorization server trusts this workload as',
    );
  }
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

/** `--origin`: a web origin (`scheme://host[:port]`, nothing after), as a browser sends it in `Origin`. */
export function originOption(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  let origin: string | undefined;
  try {
    origin = new URL(value).origin;
  } catch {
    origin = undefined;
  }
  if (origin === undefined || origin === 'null' || origin !== value)
    throw new UsageError(`--origin must be a web origin such as https://app.example.com, not "${value}"`);
  return value;
}
