import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import {
  ClientRepository,
  generateClientSecret,
  hashClientSecret,
  UserRepository,
} from '@portcullis/authorization';
import { safeUrl } from '@portcullis/metadata';
import { openDatabase, type Database } from '@portcullis/persistence';
import { databaseTargetFromEnv, describeStartupError, parseEnv, type EnvSource } from '@portcullis/platform';
import { envSchema } from '../env.schema.js';

/** Spec 2.3 and 5.6.2: a redirect URI is https, or http on a loopback host; no fragment. */
const RedirectUri = safeUrl({ httpsUnlessLoopback: true });

const USAGE = `portcullis-admin: manage the authorization server's database (the one DATABASE_URL or PGLITE_DIR names)

  clients create --name NAME --redirect-uri URI [--redirect-uri URI ...]
                 [--auth none|client_secret_basic|client_secret_post] [--no-refresh] [--client-id ID]
  clients list
  clients delete CLIENT_ID
  users create USERNAME [--password PASSWORD]   (a random password is made and shown once without one)
  users list

  --json   machine-readable output
`;

/** What a command prints: lines for people, or one JSON value with --json. */
export interface AdminOutput {
  out(text: string): void;
  err(text: string): void;
}

/**
 * Runs one admin command against the configured database; returns the exit code. Opening the embedded database
 * while the server holds it fails with a message naming PGLITE_DIR.
 */
export async function runAdmin(
  argv: readonly string[],
  env: EnvSource,
  output: AdminOutput,
  options: { database?: Database } = {},
): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        name: { type: 'string' },
        'redirect-uri': { type: 'string', multiple: true },
        auth: { type: 'string' },
        'no-refresh': { type: 'boolean' },
        'client-id': { type: 'string' },
        password: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    output.err(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [noun, verb, argument] = positionals;
  if (values.help || !noun) {
    output.out(USAGE);
    return values.help ? 0 : 2;
  }
  const json = values.json === true;
  const print = (human: string, data: unknown) => output.out(json ? JSON.stringify(data, null, 2) : human);

  let database: Database;
  try {
    database =
      options.database ??
      (await openDatabase(databaseTargetFromEnv(parseEnv(envSchema, env), 'authorization-server')));
  } catch (error) {
    output.err(`portcullis-admin: ${describeStartupError(error)}`);
    return 1;
  }
  try {
    const clients = new ClientRepository(database.prisma);
    const users = new UserRepository(database.prisma);
    switch (`${noun} ${verb ?? ''}`.trim()) {
      case 'clients create': {
        const redirectUris = values['redirect-uri'] ?? [];
        const problems = redirectUris.flatMap((uri) => {
          const result = RedirectUri.safeParse(uri);
          return result.success ? [] : [`${uri}: ${result.error.issues[0]?.message ?? 'invalid'}`];
        });
        const auth = values.auth ?? 'none';
        if (!values.name || redirectUris.length === 0 || problems.length > 0) {
          output.err(`clients create needs --name and at least one valid --redirect-uri\n${problems.join('\n')}`);
          return 2;
        }
        if (!['none', 'client_secret_basic', 'client_secret_post'].includes(auth)) {
          output.err('--auth must be none, client_secret_basic or client_secret_post');
          return 2;
        }
        const secret = auth === 'none' ? undefined : generateClientSecret();
        const client = await clients.create({
          clientId: values['client-id'] ?? `pc_${randomBytes(12).toString('base64url')}`,
          clientName: values.name,
          redirectUris,
          grantTypes: values['no-refresh'] ? ['authorization_code'] : ['authorization_code', 'refresh_token'],
          tokenEndpointAuthMethod: auth,
          applicationType: redirectUris.every((uri) => uri.startsWith('https:')) ? 'web' : 'native',
          origin: 'preregistered',
          ...(secret ? { secretHash: hashClientSecret(secret) } : {}),
        });
        print(
          [
            `created client ${client.clientId} (${auth === 'none' ? 'public' : 'confidential'})`,
            ...(secret ? [`client secret (shown once, store it now): ${secret}`] : []),
          ].join('\n'),
          { client_id: client.clientId, ...(secret ? { client_secret: secret } : {}), client_name: values.name, redirect_uris: redirectUris, token_endpoint_auth_method: auth },
        );
        return 0;
      }
      case 'clients list': {
        const list = await clients.list();
        print(
          list.length === 0
            ? 'no clients'
            : list.map((c) => `${c.clientId}\t${c.clientName ?? ''}\t${c.tokenEndpointAuthMethod}\t${c.redirectUris.join(' ')}`).join('\n'),
          list.map((c) => ({
            client_id: c.clientId,
            client_name: c.clientName,
            token_endpoint_auth_method: c.tokenEndpointAuthMethod,
            redirect_uris: c.redirectUris,
            grant_types: c.grantTypes,
          })),
        );
        return 0;
      }
      case 'clients delete': {
        if (!argument) {
          output.err('clients delete needs a CLIENT_ID');
          return 2;
        }
        const deleted = await clients.delete(argument);
        if (!deleted) {
          output.err(`no client ${argument}`);
          return 1;
        }
        print(`deleted client ${argument}`, { deleted: argument });
        return 0;
      }
      case 'users create': {
        if (!argument) {
          output.err('users create needs a USERNAME');
          return 2;
        }
        const password = values.password ?? randomBytes(12).toString('base64url');
        if (await users.findByUsername(argument)) {
          output.err(`user ${argument} already exists`);
          return 1;
        }
        const user = await users.create(argument, password);
        print(
          `created user ${argument}${values.password ? '' : `\npassword (shown once): ${password}`}`,
          { id: user.id, username: argument, ...(values.password ? {} : { password }) },
        );
        return 0;
      }
      case 'users list': {
        const list = await database.prisma.user.findMany({ orderBy: { createdAt: 'asc' } });
        print(
          list.length === 0 ? 'no users' : list.map((u) => `${u.username}\t${u.id}`).join('\n'),
          list.map((u) => ({ id: u.id, username: u.username, created_at: u.createdAt })),
        );
        return 0;
      }
      default:
        output.err(`unknown command: ${positionals.join(' ')}\n\n${USAGE}`);
        return 2;
    }
  } finally {
    if (!options.database) await database.close();
  }
}
