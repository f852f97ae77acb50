/**
 * What `--id-jag` exchanges (MCP SEP-990): the user's ID token, given as the token itself or as a file holding it,
 * with `--idp-token-endpoint` and the IdP client of `--idp-client-id`/`--idp-client-secret`. A file that cannot be
 * read or holds no ID token is one line; the token itself is never printed.
 *
 * @see https://github.com/modelcontextprotocol/ext-auth/blob/main/specification/draft/enterprise-managed-authorization.mdx
 */
import { readFile } from 'node:fs/promises';
import {
  idJagStrategy,
  type IdJagStrategyOptions,
} from '@portcullis/extension-enterprise-managed-authorization';
import { UsageError, type GlobalOptions } from './options.js';

/** An `--id-token` that is neither an ID token nor a readable file holding one: one line, exit code 1. */
export class IdTokenFileError extends Error {
  override readonly name = 'IdTokenFileError';
}

/**
 * An OpenID Connect ID token is a JWT (OpenID Connect Core 2): compact JWS (RFC 7515 7.1) or JWE (RFC 7516 7.1),
 * whose first part is base64url JSON, so it starts with `eyJ`.
 */
const COMPACT_JWT = /^eyJ[A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]*){2}(?:(?:\.[A-Za-z0-9_-]*){2})?$/u;

/** The option names the strategy's own messages use, as the command line spells them. */
const OPTION_NAMES: readonly (readonly [RegExp, string])[] = [
  [/\bidpTokenEndpoint\b/gu, '--idp-token-endpoint'],
  [/\bidToken\b/gu, '--id-token'],
  [/\bidpClientId\b/gu, '--idp-client-id'],
  [/\bidpClientSecret\b/gu, '--idp-client-secret'],
];

/**
 * The ID token of `--id-token`: the argument itself when it is a JWT, else the trimmed content of the file it names.
 *
 * @see https://openid.net/specs/openid-connect-core-1_0.html#IDToken
 */
export async function readIdToken(source: string): Promise<string> {
  if (COMPACT_JWT.test(source)) return source;
  // Named only when it looks like a path: a long argument without a separator may be a mistyped token.
  const named = /[/\\]/u.test(source) || source.length <= 100 ? ` ${source}` : '';
  let text: string;
  try {
    text = await readFile(source, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new IdTokenFileError(
      `--id-token is neither an ID token (a JWT) nor a file that can be read: cannot read the file${named}${code === undefined ? '' : ` (${code})`}`,
    );
  }
  const token = text.trim();
  if (!COMPACT_JWT.test(token)) {
    throw new IdTokenFileError(`the --id-token file${named} does not hold an ID token (a JWT)`);
  }
  return token;
}

/**
 * The options with what `--id-jag` exchanges, read and checked, when it is given.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8693#section-2.1
 */
export async function withIdJagClient(options: GlobalOptions): Promise<GlobalOptions> {
  if (!options.idJag || options.idTokenSource === undefined || options.idpTokenEndpoint === undefined) {
    return options;
  }
  const client: IdJagStrategyOptions = {
    idToken: await readIdToken(options.idTokenSource),
    idpTokenEndpoint: options.idpTokenEndpoint,
    ...(options.idpClientId === undefined ? {} : { idpClientId: options.idpClientId }),
    ...(options.idpClientSecret === undefined ? {} : { idpClientSecret: options.idpClientSecret }),
  };
  try {
    idJagStrategy(client);
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    throw new UsageError(
      OPTION_NAMES.reduce((message, [name, option]) => message.replace(name, option), error.message),
    );
  }
  return { ...options, idJagClient: client };
}
