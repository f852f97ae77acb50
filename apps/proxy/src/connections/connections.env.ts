// `CONNECTIONS`: the providers beyond the sign-in one whose tokens a user may keep in the vault for tools (sign in
// with Entra, connect GitHub). Each connection is a provider preset with a client of its own, written as the sign-in's
// `UPSTREAM_*` variables are, lowercased and without the prefix: `{"github": {"provider": "github", "client_id":
// ..., "client_secret": ..., "scopes": "repo read:user"}}`. Rules kept: the same checks as the sign-in provider's
// (`checkUpstreamProviderEnv`: a variable of another preset is refused, a required one named); a name is a path
// segment and the RFC 8693 `audience` of the exchange, so lowercase letters, digits and `-`; `upstream` is the
// sign-in provider's own; no allowed-user rules (a connection signs no one in); every issue names
// `CONNECTIONS.<name>.<member>`.
import { CONNECTION_NAME } from '@portcullis/protocol';
import { z } from 'zod';
import {
  checkUpstreamProviderEnv,
  defaultUpstreamScopes,
  UpstreamIssuerSchema,
  upstreamProviderEnvFields,
  upstreamProviderOptions,
} from '../upstream/providers/upstream-provider.env.js';
import {
  UPSTREAM_PROVIDER_NAMES,
  type UpstreamProviderOptions,
} from '../upstream/providers/upstream-provider.js';

/** The connection of the provider people sign in to the proxy with: the `upstream` of the exchange's `audience`. */
export const SIGN_IN_CONNECTION = 'upstream';

/** A connection's name: a path segment (`/connections/<name>/connect`) and the exchange's `audience`. */
export { CONNECTION_NAME };

/** One connection as configured: the preset, where it is, and the proxy's client there. */
export interface ConnectionSettings {
  readonly provider: UpstreamProviderOptions;
  /** The issuer, or what stands for it (see `upstreamProviderOptions`); its host names the provider on pages. */
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret?: string;
  readonly scopes: readonly string[];
}

/** The members a connection may have: the sign-in provider's variables, lowercased and without `UPSTREAM_`. */
const MEMBERS = [
  'provider',
  'issuer',
  'client_id',
  'client_secret',
  'scopes',
  'base_url',
  'api_url',
  'tenant',
  'authorization_server',
  'audience',
  'realm',
  'authorization_endpoint',
  'token_endpoint',
  'userinfo_endpoint',
  'subject_claim',
  'token_endpoint_auth_method',
] as const;

type Member = (typeof MEMBERS)[number];
type ProviderEnv = Parameters<typeof checkUpstreamProviderEnv>[0];

const variableOf = (member: Member) => `UPSTREAM_${member.toUpperCase()}` as keyof ProviderEnv;
const memberOf = (variable: string) => variable.replace(/^UPSTREAM_/, '').toLowerCase();

/** A scope list: an array of scope tokens, or one space-separated string of them. */
const ScopesSchema = z
  .union([z.string(), z.array(z.string())])
  .transform((value) => (Array.isArray(value) ? value : value.split(' ')).filter(Boolean))
  .refine(
    (scopes) => scopes.every((scope) => /^[\x21\x23-\x5b\x5d-\x7e]+$/.test(scope)),
    'must be scope tokens (RFC 6749 3.3)',
  );

const ConnectionSchema = z
  .object({
    provider: z.enum(UPSTREAM_PROVIDER_NAMES, {
      error: `must be one of ${UPSTREAM_PROVIDER_NAMES.join(', ')}`,
    }),
    issuer: UpstreamIssuerSchema.optional(),
    client_id: z.string().min(1, 'must not be empty'),
    client_secret: z.string().min(1, 'must not be empty').optional(),
    scopes: ScopesSchema.optional(),
    base_url: upstreamProviderEnvFields.UPSTREAM_BASE_URL,
    api_url: upstreamProviderEnvFields.UPSTREAM_API_URL,
    tenant: upstreamProviderEnvFields.UPSTREAM_TENANT,
    authorization_server: upstreamProviderEnvFields.UPSTREAM_AUTHORIZATION_SERVER,
    audience: upstreamProviderEnvFields.UPSTREAM_AUDIENCE,
    realm: upstreamProviderEnvFields.UPSTREAM_REALM,
    authorization_endpoint: upstreamProviderEnvFields.UPSTREAM_AUTHORIZATION_ENDPOINT,
    token_endpoint: upstreamProviderEnvFields.UPSTREAM_TOKEN_ENDPOINT,
    userinfo_endpoint: upstreamProviderEnvFields.UPSTREAM_USERINFO_ENDPOINT,
    subject_claim: upstreamProviderEnvFields.UPSTREAM_SUBJECT_CLAIM,
    token_endpoint_auth_method: upstreamProviderEnvFields.UPSTREAM_TOKEN_ENDPOINT_AUTH_METHOD,
  })
  .strict();

type Connection = z.infer<typeof ConnectionSchema>;

/** The connection's members as the sign-in provider's variables, for the checks and the presets they share. */
function asProviderEnv(connection: Connection): ProviderEnv {
  const env: Record<string, unknown> = {};
  for (const member of MEMBERS) {
    if (connection[member] !== undefined) env[variableOf(member)] = connection[member];
  }
  return env as ProviderEnv;
}

/**
 * `CONNECTIONS`, parsed: a JSON object of connection names to connections; each issue names the connection and its
 * member. Unset or `{}`: no connection beyond the sign-in provider's.
 */
export const ConnectionsEnvSchema = z
  .string()
  .transform((text, context): unknown => {
    try {
      return JSON.parse(text);
    } catch {
      context.addIssue({
        code: 'custom',
        message: 'must be a JSON object of connection names to connections',
      });
      return z.NEVER;
    }
  })
  .pipe(z.record(z.string(), ConnectionSchema))
  .superRefine((connections, context) => {
    for (const [name, connection] of Object.entries(connections)) {
      if (!CONNECTION_NAME.test(name)) {
        context.addIssue({
          code: 'custom',
          path: [name],
          message: `is not a connection name (${CONNECTION_NAME.source}): it is a path segment and an RFC 8693 audience`,
        });
      } else if (name === SIGN_IN_CONNECTION) {
        context.addIssue({
          code: 'custom',
          path: [name],
          message: `is the sign-in provider's connection (the UPSTREAM_* variables): name this one otherwise`,
        });
      }
      checkConnection(name, connection, context);
    }
  })
  .transform((connections) => {
    const settings = new Map<string, ConnectionSettings>();
    for (const [name, connection] of Object.entries(connections)) {
      settings.set(name, connectionSettings(connection));
    }
    return settings as ReadonlyMap<string, ConnectionSettings>;
  });

/** The sign-in provider's checks, on the connection's members; each issue renamed to the member it is about. */
function checkConnection(name: string, connection: Connection, context: z.RefinementCtx): void {
  const issues: z.core.$ZodSuperRefineIssue[] = [];
  const env = asProviderEnv(connection);
  checkUpstreamProviderEnv(env, {
    value: env,
    issues: [],
    addIssue: (issue) => {
      if (typeof issue !== 'string') issues.push(issue);
    },
  });
  for (const issue of issues) {
    const [variable] = issue.path ?? [];
    context.addIssue({
      code: 'custom',
      path: [name, ...(typeof variable === 'string' ? [memberOf(variable)] : [])],
      message: (issue.message ?? 'is not valid')
        .replace(/UPSTREAM_PROVIDER=/g, 'provider ')
        .replace(/UPSTREAM_[A-Z_]+/g, memberOf),
    });
  }
  // The sign-in's `oidc` defaults to the local development server; a connection has no default to fall back on.
  if (connection.provider === 'oidc' && connection.issuer === undefined) {
    context.addIssue({ code: 'custom', path: [name, 'issuer'], message: 'is required with provider oidc' });
  }
}

function connectionSettings(connection: Connection): ConnectionSettings {
  const env = asProviderEnv(connection);
  const { provider, issuer } = upstreamProviderOptions(env);
  if (issuer === undefined) throw new Error('a checked connection has an issuer');
  return {
    provider,
    issuer,
    clientId: connection.client_id,
    ...(connection.client_secret ? { clientSecret: connection.client_secret } : {}),
    scopes: connection.scopes ?? defaultUpstreamScopes(env),
  };
}
