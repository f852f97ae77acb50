/**
 * Builds the authorized fetch a command uses from the command line's options.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import {
  BrowserUserAgent,
  FileTokenStore,
  HeadlessUserAgent,
  createAuthorizedFetch,
  type AuthorizedFetch,
  type PreRegisteredClient,
  type TokenStore,
  type UserAgent,
} from '@portcullis/client';
import { CLIENT_CREDENTIALS, ID_JAG, WORKLOAD_IDENTITY, cliExtensions } from './extensions.js';
import type { GlobalOptions } from './options.js';
import type { Output } from './output.js';

/** The client name sent when registering dynamically. */
export const CLIENT_NAME = 'Portcullis command line';

/** The token store file: `--store`, else `$PORTCULLIS_HOME/tokens.json`, else `~/.portcullis/tokens.json`. */
export function tokenStorePath(
  options: GlobalOptions,
  env: Readonly<Record<string, string | undefined>>,
): string {
  return options.store ?? join(env['PORTCULLIS_HOME'] ?? join(homedir(), '.portcullis'), 'tokens.json');
}

/** The encrypted file store of the command line. */
export function openTokenStore(
  options: GlobalOptions,
  env: Readonly<Record<string, string | undefined>>,
): FileTokenStore {
  return new FileTokenStore({ path: tokenStorePath(options, env), env });
}

/** Pre-registered credentials from `--client-id`/`--client-secret`/`--private-key`/`--issuer`. */
export function preRegisteredClient(options: GlobalOptions): PreRegisteredClient | undefined {
  if (options.clientId === undefined) return undefined;
  return {
    clientId: options.clientId,
    ...(options.clientSecret === undefined ? {} : { clientSecret: options.clientSecret }),
    ...(options.clientKey === undefined ? {} : { privateKey: options.clientKey }),
    ...(options.issuer === undefined ? {} : { issuer: options.issuer }),
  };
}

/** The user-agent: the system browser, or the headless one with `--headless`. */
export function userAgentFor(options: GlobalOptions, output: Output): UserAgent {
  if (options.headless) {
    return new HeadlessUserAgent(
      options.redirectUri === undefined ? {} : { redirectUri: options.redirectUri },
    );
  }
  return new BrowserUserAgent({
    onOpen: (url) =>
      output.info(
        `  · Opening the browser at the authorization server; if it does not open, visit:\n    ${url}`,
      ),
  });
}

/** The authorized fetch for one server, from the command line's options. */
export function authorizedFetchFor(input: {
  serverUrl: string;
  options: GlobalOptions;
  output: Output;
  store: TokenStore;
  userAgent?: UserAgent;
  /**
   * With `--client-credentials` or `--id-jag` (or the conformance context): where the server lacks the grant,
   * authorize a user. Never with `--workload-token`.
   */
  grantStrategyFallback?: 'error' | 'authorization_code';
}): AuthorizedFetch {
  const { options } = input;
  const client = preRegisteredClient(options);
  if (client !== undefined && client.issuer === undefined) {
    input.output.info(
      `  · Client ID ${client.clientId} will be bound to the first authorization server used (pass --issuer to name it)`,
    );
  }
  // `--workload-token` (MCP SEP-1933), else `--id-jag` (MCP SEP-990) once its ID token is read, else
  // `--client-credentials` (MCP SEP-1046), else neither.
  const grantStrategy =
    options.workloadToken !== undefined
      ? WORKLOAD_IDENTITY
      : options.idJagClient !== undefined
        ? ID_JAG
        : options.clientCredentials === true
          ? CLIENT_CREDENTIALS
          : undefined;
  // A workload has no user to fall back to: the authorization code flow is never its way (MCP SEP-1933).
  const fallback = grantStrategy === WORKLOAD_IDENTITY ? 'error' : (input.grantStrategyFallback ?? 'error');
  return createAuthorizedFetch({
    resource: input.serverUrl,
    ...(grantStrategy !== undefined && fallback === 'error'
      ? {}
      : { userAgent: input.userAgent ?? userAgentFor(options, input.output) }),
    // Always composed: DPoP (MCP SEP-1932) for servers that accept it, unless `--no-dpop`.
    extensions: cliExtensions(options.idJagClient, options.workloadToken, options.dpop),
    proofOfPossession: options.dpop,
    ...(grantStrategy === undefined ? {} : { grantStrategy, grantStrategyFallback: fallback }),
    store: input.store,
    ...(options.revision === undefined ? {} : { revision: options.revision }),
    ...(client === undefined ? {} : { clientCredentials: client }),
    ...(options.clientMetadataUrl === undefined ? {} : { clientMetadataUrl: options.clientMetadataUrl }),
    clientRegistration: {
      clientName: CLIENT_NAME,
      softwareId: 'portcullis-cli',
      // `--private-key` without `--client-id`: register the key (RFC 7591 2, `jwks`) and authenticate with it.
      ...(client === undefined && options.clientKey !== undefined ? { privateKey: options.clientKey } : {}),
    },
    onProgress: input.output.progress,
  });
}
