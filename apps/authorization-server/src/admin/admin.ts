import { parseArgs } from 'node:util';
import { openDatabase, type Database } from '@portcullis/persistence';
import { databaseTargetFromEnv, describeStartupError, parseEnv, type EnvSource } from '@portcullis/platform';
import { envSchema } from '../env.schema.js';
import type { AdminCommand, AdminContext } from './admin-command.js';
import { CLIENT_COMMANDS } from './clients.commands.js';
import { EVENT_COMMANDS } from './events.commands.js';
import { KEY_COMMANDS } from './keys.commands.js';
import { USER_COMMANDS } from './users.commands.js';

const USAGE = `portcullis-admin: manage the authorization server's database (the one DATABASE_URL or PGLITE_DIR names)

  clients create --name NAME --redirect-uri URI [--redirect-uri URI ...]
                 [--auth none|client_secret_basic|client_secret_post|private_key_jwt] [--no-refresh] [--client-id ID]
                 [--jwks-uri URL | --jwks-file FILE]   (private_key_jwt: the client's public keys, RFC 7523)
                 [--dpop-bound-access-tokens]   (the client always sends DPoP proofs: RFC 9449 5.2, EXTENSIONS=dpop)
  clients create --name NAME --resource-server RESOURCE_URI [--auth client_secret_basic|client_secret_post]
                 [--client-id ID]          (a resource server: it may introspect tokens issued for RESOURCE_URI)
                 [--grant token-exchange]  (at the proxy: it may exchange them for the user's upstream token, RFC 8693)
                 [--connections NAME,...]  (with token-exchange: the connections it may ask for; default upstream)
  clients create --name NAME --grant client_credentials [--scope "SCOPE ..."]
                 [--auth client_secret_basic|client_secret_post|private_key_jwt] [--client-id ID]
                                         (a machine client: client credentials grant, EXTENSIONS=client-credentials)
  clients create --name NAME --grant urn:ietf:params:oauth:grant-type:jwt-bearer [--auth ...]
                                         (an enterprise client redeeming ID-JAGs, EXTENSIONS=enterprise-managed-authorization)
  clients list
  clients delete CLIENT_ID               (its grants and tokens are revoked)
  users create USERNAME [--password PASSWORD]   (a random password is made and shown once without one)
               [--name NAME] [--email EMAIL [--email-verified]]
                                         (the claims the profile and email scopes grant, OpenID Connect Core 5.4)
  users update USERNAME [--name NAME] [--email EMAIL] [--email-verified | --email-unverified]
                                         (an empty NAME or EMAIL removes it)
  users list
  users delete USERNAME                  (signs the user out, revokes their grants and consents)
  users set-password USERNAME [--password PASSWORD]   (signs the user out everywhere)
  keys rotate [--now]                    (a new signing key, published at once; it signs after
                                          SIGNING_KEY_ACTIVATION_DELAY, when resource servers' cached key sets
                                          have it, or at once with --now (an emergency); the old one stays
                                          published until every token it signed has expired)
  keys withdraw KID                      (a retired key leaves jwks_uri now: a compromised key, after
                                          keys rotate --now; the tokens it signed stop verifying)
  keys list
  events [--since DURATION] [--type TYPE ...]   (security events, oldest first: sign-ins, consents, replays
                                          and reuses, registrations, key rotations, refused introspections;
                                          --since 30m, 1h, 7d, default 24h)

  --json   machine-readable output

Run it with the server's own configuration: KEY_ENCRYPTION_KEY seals new keys, ACCESS_TOKEN_TTL,
ID_TOKEN_TTL and SIGNING_KEY_RELOAD_INTERVAL decide how long a retired key stays published, and
SIGNING_KEY_ACTIVATION_DELAY (or JWKS_MAX_AGE) when a rotated key starts signing.
`;

/** What a command prints: lines for people, or one JSON value with --json. */
export interface AdminOutput {
  out(text: string): void;
  err(text: string): void;
}

const COMMANDS: Readonly<Record<string, AdminCommand>> = {
  ...CLIENT_COMMANDS,
  ...USER_COMMANDS,
  ...KEY_COMMANDS,
  ...EVENT_COMMANDS,
};

/**
 * Runs one admin command against the configured database; returns the exit code (0 done, 1 failed, 2 usage).
 * Opening the embedded database while the server holds it fails with a message naming PGLITE_DIR.
 */
export async function runAdmin(
  argv: readonly string[],
  env: EnvSource,
  output: AdminOutput,
  options: { database?: Database } = {},
): Promise<number> {
  // A key ID is a base64url JWK thumbprint (RFC 7638) and may start with `-`: the only short option is `-h`, so
  // any other argument that starts with one `-` is an operand (or an option's value), never a cluster of short
  // options. It is passed through parseArgs under a placeholder and restored after.
  const operands = new Map<string, string>();
  const args = argv.map((arg, index) => {
    if (!/^-[^-]/.test(arg) || arg === '-h') return arg;
    const placeholder = `operand:${index}:${arg.length}`;
    operands.set(placeholder, arg);
    return placeholder;
  });
  const restore = (value: string): string => operands.get(value) ?? value;
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: {
        name: { type: 'string' },
        'redirect-uri': { type: 'string', multiple: true },
        auth: { type: 'string' },
        'no-refresh': { type: 'boolean' },
        'dpop-bound-access-tokens': { type: 'boolean' },
        'jwks-uri': { type: 'string' },
        'jwks-file': { type: 'string' },
        'client-id': { type: 'string' },
        'resource-server': { type: 'string' },
        grant: { type: 'string' },
        connections: { type: 'string' },
        scope: { type: 'string' },
        password: { type: 'string' },
        email: { type: 'string' },
        'email-verified': { type: 'boolean' },
        'email-unverified': { type: 'boolean' },
        json: { type: 'boolean' },
        now: { type: 'boolean' },
        since: { type: 'string' },
        type: { type: 'string', multiple: true },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    output.err(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const values = Object.fromEntries(
    Object.entries(parsed.values).map(([name, value]) => [
      name,
      typeof value === 'string' ? restore(value) : Array.isArray(value) ? value.map(restore) : value,
    ]),
  ) as typeof parsed.values;
  const positionals = parsed.positionals.map(restore);
  const [noun, verb, argument] = positionals;
  if (values.help || !noun) {
    output.out(USAGE);
    return values.help ? 0 : 2;
  }
  const command = COMMANDS[`${noun} ${verb ?? ''}`.trim()];
  if (!command) {
    output.err(`unknown command: ${positionals.join(' ')}\n\n${USAGE}`);
    return 2;
  }

  let config;
  let database: Database;
  try {
    config = parseEnv(envSchema, env);
    // The authorization server's or the proxy's database, maybe before the app first booted on it: the shared
    // authorization tables the commands need, and nothing of either app's own (its boot applies those).
    database =
      options.database ??
      (await openDatabase(databaseTargetFromEnv(config, 'authorization-server'), {
        schema: ['authorization'],
      }));
  } catch (error) {
    output.err(`portcullis-admin: ${describeStartupError(error)}`);
    return 1;
  }
  const json = values.json === true;
  const context: AdminContext = {
    prisma: database.prisma,
    config,
    values,
    ...(argument !== undefined ? { argument } : {}),
    print: (human, data) => output.out(json ? JSON.stringify(data, null, 2) : human),
    fail: (text, code = 1) => {
      output.err(text);
      return code;
    },
  };
  try {
    return await command(context);
  } catch (error) {
    output.err(`portcullis-admin: ${(error as Error).message}`);
    return 1;
  } finally {
    if (!options.database) await database.close();
  }
}
