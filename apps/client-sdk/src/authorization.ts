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

/** Pre-registered credentials from `--client-id`/`--client-secret`/`--issuer`. */
export function preRegisteredClient(options: GlobalOptions): PreRegisteredClient | undefined {
  if (options.clientId === undefined) return undefined;
  return {
    clientId: options.clientId,
    ...(options.clientSecret === undefined ? {} : { clientSecret: options.clientSecret }),
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
}): AuthorizedFetch {
  const { options } = input;
  const client = preRegisteredClient(options);
  if (client !== undefined && client.issuer === undefined) {
    input.output.info(
      `  · Client ID ${client.clientId} will be bound to the first authorization server used (pass --issuer to name it)`,
    );
  }
  return createAuthorizedFetch({
    resource: input.serverUrl,
    userAgent: input.userAgent ?? userAgentFor(options, input.output),
    store: input.store,
    ...(options.revision === undefined ? {} : { revision: options.revision }),
    ...(client === undefined ? {} : { clientCredentials: client }),
    ...(options.clientMetadataUrl === undefined ? {} : { clientMetadataUrl: options.clientMetadataUrl }),
    clientRegistration: { clientName: CLIENT_NAME, softwareId: 'portcullis-cli' },
    onProgress: input.output.progress,
  });
}
