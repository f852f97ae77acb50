/**
 * What the command line prints: results on stdout, progress and errors on stderr, one line per step. Nothing
 * printed here ever contains a token, a code or a secret: progress events carry none, and errors are printed from
 * their code, message and the authorization server's own error fields (or the enterprise IdP's, for `--id-jag`).
 */
import { findPortcullisError, type PortcullisErrorCode, type ProgressEvent } from '@portcullis/client';
import { UsageError, USAGE } from './options.js';

/** Where the command line writes. */
export interface Streams {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
  /**
   * Asks the person at the terminal and resolves with their answer, or `undefined` when there is nobody to ask (no
   * terminal, or the input has ended). Absent: never ask.
   */
  readonly ask?: (question: string) => Promise<string | undefined>;
}

/** What a person can do about each failure, printed under the error. */
const HINTS: Partial<Record<PortcullisErrorCode, string>> = {
  no_client_id:
    'Register a client with the authorization server and pass --client-id (and --client-secret for a confidential client).',
  resource_mismatch:
    'The server URL may be wrong, or the server is misconfigured: its metadata names another resource.',
  issuer_mismatch:
    'The authorization server publishes metadata for another issuer; do not use it until that is fixed.',
  pkce_unsupported: 'This authorization server cannot be used: it does not support PKCE with S256.',
  iss_missing:
    'The authorization response was discarded. Try again; if it persists, report it to the server operator.',
  iss_mismatch:
    'The authorization response came from another server and was discarded (possible mix-up attack).',
  state_mismatch:
    'The authorization response was not the answer to this request and was discarded. Try again.',
  step_up_exhausted:
    'Your account may not be allowed this operation; ask the server operator for the scope it needs.',
  user_agent_failed:
    'Open the URL printed above in a browser, or use --headless only with servers that need no login.',
  token_store_failed: 'Check the store file and PORTCULLIS_TOKEN_KEY, or pass --store to use another file.',
  resource_metadata_unavailable: 'Check the server URL and that the server is running.',
  metadata_unavailable: 'Check that the authorization server is running and reachable.',
  proof_of_possession_required:
    'Ask the operators to accept DPoP at the server (and advertise it in its resource metadata) or to stop requiring it at the authorization server for this client.',
};

/** What a person can do when the token exchange at the enterprise IdP fails (`--id-jag`, MCP SEP-990). */
const ID_JAG_HINTS: Readonly<Record<string, string>> = {
  idp_request_failed: 'Check --idp-token-endpoint and that the identity provider is reachable.',
  token_exchange_refused:
    'The ID token may have expired (sign in to the identity provider again), or the IdP policy does not allow this client to reach this server.',
  invalid_token_exchange_response:
    'The identity provider does not issue Identity Assertion JWT Authorization Grants at this endpoint.',
  scope_not_granted:
    'The identity provider policy does not grant this client the scope the server asks for; ask its administrator.',
};

/** For a failure of `--workload-token` (MCP SEP-1933): a `WorkloadIdentityError`, by its code. */
const WORKLOAD_HINTS: Readonly<Record<string, string>> = {
  invalid_grant:
    'The authorization server does not trust this workload JWT (issuer, signature, audience, expiry, or already used); check its trusted issuers and the token the platform projects.',
  invalid_scope: 'The trust rule for this workload does not allow the scope the server asks for.',
  unauthorized_client:
    'No trust rule of the authorization server covers this workload (its sub); ask its administrator.',
  workload_token_unavailable: 'Check --workload-token: the file the platform projects the workload JWT into.',
};

/**
 * The first failure of the enterprise-managed authorization strategy in an error's `cause` chain: an `IdJagError`
 * of `@portcullis/extension-enterprise-managed-authorization`, known by its name and code.
 */
function findIdJagError(error: unknown, name = 'IdJagError'): { code: string; message: string } | undefined {
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (current instanceof Error && !seen.has(current)) {
    const code = (current as { code?: unknown }).code;
    if (current.name === name && typeof code === 'string') return { code, message: current.message };
    seen.add(current);
    current = current.cause;
  }
  return undefined;
}

/** Prints progress and errors. */
export class Output {
  constructor(
    readonly streams: Streams,
    private readonly quiet: boolean,
  ) {}

  /** One progress line per step of the flow. */
  readonly progress = (event: ProgressEvent): void => {
    if (!this.quiet) this.streams.stderr.write(`  · ${event.message}\n`);
  };

  info(line: string): void {
    if (!this.quiet) this.streams.stderr.write(`${line}\n`);
  }

  result(line: string): void {
    this.streams.stdout.write(`${line}\n`);
  }

  /** Prints an error so a person can act on it; returns the exit code. */
  error(error: unknown): number {
    if (error instanceof UsageError) {
      this.streams.stderr.write(`portcullis: ${error.message}\n\n${USAGE}`);
      return 2;
    }
    // A workload identity refusal first: the SDK may carry it as the cause of its own error.
    const workload = findIdJagError(error, 'WorkloadIdentityError');
    if (workload !== undefined) {
      this.streams.stderr.write(`portcullis: ${workload.message} [${workload.code}]\n`);
      const hint = WORKLOAD_HINTS[workload.code];
      if (hint !== undefined) this.streams.stderr.write(`  ${hint}\n`);
      return 1;
    }
    const known = findPortcullisError(error);
    if (known !== undefined) {
      this.streams.stderr.write(`portcullis: ${known.message} [${known.code}]\n`);
      const hint = HINTS[known.code];
      if (hint !== undefined) this.streams.stderr.write(`  ${hint}\n`);
      return 1;
    }
    const idJag = findIdJagError(error);
    if (idJag !== undefined) {
      this.streams.stderr.write(`portcullis: ${idJag.message} [${idJag.code}]\n`);
      const hint = ID_JAG_HINTS[idJag.code];
      if (hint !== undefined) this.streams.stderr.write(`  ${hint}\n`);
      return 1;
    }
    const message = error instanceof Error ? error.message : String(error);
    this.streams.stderr.write(`portcullis: ${message}\n`);
    return 1;
  }
}
