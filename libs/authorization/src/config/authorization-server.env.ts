import {
  canonicalizeResourceUri,
  isLoopbackHost,
  isScopeToken,
  issuerIdentifierProblem,
} from '@portcullis/protocol';
import {
  getRevision,
  isRevisionId,
  LATEST_REVISION,
  REVISIONS,
  type RevisionId,
} from '@portcullis/revisions';
import { ExtensionRegistry } from '@portcullis/extensions';
import { isRedisUrl, REDIS_URL_FORMAT, type ProductionRequirement } from '@portcullis/platform';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { MetadataDocumentFetchOverrides } from '../clients/metadata-documents/client-id-metadata-documents.options.js';
import { parseKeyEncryptionKey } from '../keys/key-encryption.js';
import {
  DEFAULT_JWKS_MAX_AGE,
  leastActivationDelay,
  RESOURCE_SERVER_REFETCH_COOLDOWN,
} from '../keys/signing-key-timing.js';
import { CLAIM_SCOPES } from '../resources/resource-registry.js';
import type { AuthorizationServerOptions } from './authorization-server.options.js';
import { AllowedRedirectSchemesEnvSchema } from './redirect-schemes.env.js';

/**
 * The environment variables of an app built on these modules (the authorization server, the proxy), as zod fields
 * an app adds to its `env.schema.ts`, and the one mapping from them to {@link AuthorizationServerOptions}. See the
 * docs/reference/environment.md.
 */

/** A reuse grace window (a refresh token's, a code's): whole seconds, 0 (strict, the default) to 60. */
const reuseGrace = () => z.coerce.number().int().min(0).max(60, 'must be at most 60 seconds').default(0);

const seconds = (fallback: number) =>
  z.coerce
    .number()
    .int()
    .min(1)
    .max(10 * 365 * 86_400)
    .default(fallback);

/**
 * An issuer identifier: the protocol lib's one rule for configured issuers (`issuerIdentifierProblem`): an absolute
 * https URL (RFC 8414 2; MCP "Communication Security"), or http on a loopback host for development; no query,
 * fragment, userinfo or trailing slash, because it is compared byte for byte.
 */
export const IssuerEnvSchema = z.string().superRefine((value, context) => {
  const problem = issuerIdentifierProblem(value);
  if (problem) context.addIssue({ code: 'custom', message: problem });
});

/**
 * A resource's scope named like one of the authorization server's OpenID Connect claim scopes (`profile`, `email`,
 * OIDC Core 5.4) is refused: the consent page, the ID token and the access token's `scope` would read one name two
 * ways.
 */
function refuseClaimScope(scope: string, context: z.RefinementCtx, path: (string | number)[] = []): void {
  if (!CLAIM_SCOPES.includes(scope)) return;
  context.addIssue({
    code: 'custom',
    path,
    message:
      `must not be ${scope}: the authorization server grants the OpenID Connect scope ${scope} (claims about ` +
      "the person, OpenID Connect Core 5.4); give the resource's scope another name",
  });
}

const ResourceScopeSchema = z
  .string()
  .refine(isScopeToken, 'must be a scope token')
  .superRefine(refuseClaimScope);

const ResourceSchema = z.object({
  uri: z.string().refine((uri) => {
    try {
      return canonicalizeResourceUri(uri) === uri;
    } catch {
      return false;
    }
  }, 'must be a canonical resource URI (lowercase scheme and host, no fragment, no trailing slash)'),
  name: z.string().min(1).optional(),
  scopes_supported: z.array(ResourceScopeSchema).min(1),
  scope_hierarchy: z
    .record(z.string(), z.array(ResourceScopeSchema))
    .superRefine((hierarchy, context) => {
      for (const broader of Object.keys(hierarchy)) refuseClaimScope(broader, context, [broader]);
    })
    .optional(),
});

/** The default resource: the local protected server and its notes scopes. */
export const DEFAULT_RESOURCES: readonly z.infer<typeof ResourceSchema>[] = [
  {
    uri: 'http://localhost:4100/mcp',
    name: 'Portcullis notes (local protected server)',
    scopes_supported: ['notes:read', 'notes:write'],
    scope_hierarchy: { notes: ['notes:read', 'notes:write'], 'notes:write': ['notes:read'] },
  },
];

const resources = z
  .string()
  .transform((text, context) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      context.addIssue({ code: 'custom', message: 'must be a JSON array of resources' });
      return z.NEVER;
    }
  })
  .pipe(z.array(ResourceSchema).min(1));

const secret = z
  .string()
  .min(32, 'must be at least 32 characters (e.g. `openssl rand -base64 32`)')
  .optional();

/** The variables every app built on these modules reads, with `ISSUER` defaulting to `defaultIssuer`. */
export function authorizationServerEnvFields(defaultIssuer: string) {
  return {
    ISSUER: IssuerEnvSchema.default(defaultIssuer),
    SPEC_REVISION: z
      .string()
      .refine(isRevisionId, `must be one of ${REVISIONS.join(', ')}`)
      .default(LATEST_REVISION)
      .transform((value) => value as RevisionId),
    RESOURCES: resources.optional(),
    ACCESS_TOKEN_TTL: seconds(300),
    ID_TOKEN_TTL: seconds(300),
    AUTHORIZATION_CODE_TTL: seconds(60),
    REFRESH_TOKEN_IDLE_TTL: seconds(14 * 86_400),
    REFRESH_TOKEN_ABSOLUTE_TTL: seconds(30 * 86_400),
    REFRESH_TOKEN_REUSE_GRACE: reuseGrace(),
    AUTHORIZATION_CODE_REUSE_GRACE: reuseGrace(),
    SESSION_TTL: seconds(8 * 3600),
    KEY_ENCRYPTION_KEY: z
      .string()
      .transform((text, context) => {
        const key = parseKeyEncryptionKey(text);
        if (!key) {
          context.addIssue({
            code: 'custom',
            message: 'must be 32 bytes as 64 hex digits or base64 (openssl rand -base64 32)',
          });
          return z.NEVER;
        }
        return key;
      })
      .optional(),
    COOKIE_SECRET: secret,
    // One Redis (redis://, rediss://) or the sentinels watching one (redis+sentinel://), which a failover follows.
    REDIS_URL: z.string().refine(isRedisUrl, REDIS_URL_FORMAT).optional(),
    RATE_LIMIT_TOKEN: z.coerce.number().int().min(1).default(120),
    RATE_LIMIT_LOGIN: z.coerce.number().int().min(1).default(20),
    RATE_LIMIT_REGISTER: z.coerce.number().int().min(1).default(20),
    // RFC 7591 registration: on under every revision (2026-07-28 deprecates it, see docs/authorization-server.md).
    DCR_ENABLED: z.enum(['true', 'false']).default('true'),
    DCR_INITIAL_ACCESS_TOKEN: secret,
    DCR_UNUSED_CLIENT_TTL: seconds(86_400),
    DCR_IDLE_CLIENT_TTL: seconds(90 * 86_400),
    ALLOWED_REDIRECT_SCHEMES: AllowedRedirectSchemesEnvSchema,
    SIGNING_KEY_RELOAD_INTERVAL: seconds(30),
    JWKS_MAX_AGE: seconds(DEFAULT_JWKS_MAX_AGE),
    SIGNING_KEY_ACTIVATION_DELAY: z.coerce
      .number()
      .int()
      .min(1)
      .max(10 * 365 * 86_400)
      .optional(),
    // The longest refetch cooldown of the resource servers that verify this server's tokens (their
    // JWKS_REFETCH_COOLDOWN); 0 to 300 like theirs.
    RESOURCE_SERVER_REFETCH_COOLDOWN: z.coerce
      .number()
      .int()
      .min(0)
      .max(300)
      .default(RESOURCE_SERVER_REFETCH_COOLDOWN),
    SECURITY_EVENT_RETENTION: seconds(90 * 86_400),
    CIMD_ENABLED: z.enum(['true', 'false']).optional(),
    CIMD_ALLOW_LOOPBACK: z.enum(['true', 'false']).default('false'),
    /** `true`: a production instance may have an http loopback `ISSUER` (behind a local TLS terminator, say). */
    ALLOW_LOOPBACK_ISSUER: z.enum(['true', 'false']).default('false'),
  };
}

/**
 * What an authorization server (or the proxy) needs set in production: its issuer and resources (the development
 * defaults are `http://localhost:...` and the demo notes server), and Redis unless it runs as one instance (rate
 * limits are kept per process without it). For `configureApp`'s `production`.
 */
export function authorizationServerProductionRequirements(): readonly ProductionRequirement[] {
  return [
    {
      name: 'ISSUER',
      why: 'the development default is a localhost URL',
      // The schema allows http on loopback (development); production serves https.
      invalid: (value, env) =>
        value.startsWith('https:') || env['ALLOW_LOOPBACK_ISSUER'] === 'true'
          ? undefined
          : 'must be https in production (or set ALLOW_LOOPBACK_ISSUER=true for a loopback issuer on purpose)',
    },
    { name: 'RESOURCES', why: 'the development default is the demo notes server on localhost' },
    {
      name: 'REDIS_URL',
      why: 'rate limits are shared by every instance through it',
      unless: 'SINGLE_INSTANCE',
    },
  ];
}

/** The parsed variables of {@link authorizationServerEnvFields}, with the base `NODE_ENV`. */
export type AuthorizationServerEnv = z.output<
  z.ZodObject<ReturnType<typeof authorizationServerEnvFields>>
> & {
  NODE_ENV: string;
};

/**
 * The cross-variable rules: loopback documents only for a loopback issuer (the later CIMD draft, "Server Side
 * Request Forgery (SSRF) Attacks"), a key activation delay no shorter than a resource server may hold a key set
 * without the new key ({@link leastActivationDelay}), and in production the secrets that development may do without.
 * Call it from the app schema's `superRefine`.
 */
export function checkAuthorizationServerEnv(env: AuthorizationServerEnv, context: z.RefinementCtx): void {
  if (env.CIMD_ALLOW_LOOPBACK === 'true' && !hasLoopbackHost(env.ISSUER)) {
    context.addIssue({
      code: 'custom',
      path: ['CIMD_ALLOW_LOOPBACK'],
      message: 'is only accepted when the ISSUER host is loopback',
    });
  }
  // A staged key must be in every key set a resource server may hold when it starts signing.
  const leastDelay = leastActivationDelay(
    env.JWKS_MAX_AGE,
    env.SIGNING_KEY_RELOAD_INTERVAL,
    env.RESOURCE_SERVER_REFETCH_COOLDOWN,
  );
  if (env.SIGNING_KEY_ACTIVATION_DELAY !== undefined && env.SIGNING_KEY_ACTIVATION_DELAY < leastDelay) {
    context.addIssue({
      code: 'custom',
      path: ['SIGNING_KEY_ACTIVATION_DELAY'],
      message:
        'must be at least max(JWKS_MAX_AGE, RESOURCE_SERVER_REFETCH_COOLDOWN) + SIGNING_KEY_RELOAD_INTERVAL ' +
        `(${leastDelay} s)`,
    });
  }
  if (env.NODE_ENV !== 'production') return;
  for (const name of ['COOKIE_SECRET', 'KEY_ENCRYPTION_KEY'] as const) {
    if (!env[name]) context.addIssue({ code: 'custom', path: [name], message: 'is required in production' });
  }
}

/** What the host adds that the environment never sets. */
export interface AuthorizationServerHostOptions {
  readonly loginHint?: string;
  readonly metadataDocumentFetch?: MetadataDocumentFetchOverrides;
  readonly extensions?: ExtensionRegistry;
}

/** The module options the environment describes. */
export function authorizationServerOptionsFromEnv(
  config: AuthorizationServerEnv,
  host: AuthorizationServerHostOptions = {},
): AuthorizationServerOptions {
  const resourceList = config.RESOURCES ?? DEFAULT_RESOURCES;
  return {
    issuer: config.ISSUER,
    revision: config.SPEC_REVISION,
    resources: resourceList.map((resource) => ({
      uri: resource.uri,
      scopesSupported: resource.scopes_supported,
      ...(resource.name ? { name: resource.name } : {}),
      ...(resource.scope_hierarchy ? { scopeHierarchy: resource.scope_hierarchy } : {}),
    })),
    lifetimes: {
      accessToken: config.ACCESS_TOKEN_TTL,
      idToken: config.ID_TOKEN_TTL,
      authorizationCode: config.AUTHORIZATION_CODE_TTL,
      refreshTokenIdle: config.REFRESH_TOKEN_IDLE_TTL,
      refreshTokenAbsolute: config.REFRESH_TOKEN_ABSOLUTE_TTL,
      refreshTokenReuseGrace: config.REFRESH_TOKEN_REUSE_GRACE,
      authorizationCodeReuseGrace: config.AUTHORIZATION_CODE_REUSE_GRACE,
      loginSession: config.SESSION_TTL,
      interaction: 600,
    },
    ...(config.KEY_ENCRYPTION_KEY ? { keyEncryptionKey: config.KEY_ENCRYPTION_KEY } : {}),
    // Without COOKIE_SECRET (development only; production requires it) sessions end when the process does.
    cookieSecret: config.COOKIE_SECRET ? Buffer.from(config.COOKIE_SECRET, 'utf8') : randomBytes(32),
    extensions: host.extensions ?? new ExtensionRegistry([]),
    rateLimits: {
      token: config.RATE_LIMIT_TOKEN,
      login: config.RATE_LIMIT_LOGIN,
      register: config.RATE_LIMIT_REGISTER,
    },
    registration: {
      enabled: config.DCR_ENABLED === 'true',
      ...(config.DCR_INITIAL_ACCESS_TOKEN ? { initialAccessToken: config.DCR_INITIAL_ACCESS_TOKEN } : {}),
      unusedClientTtl: config.DCR_UNUSED_CLIENT_TTL,
      idleClientTtl: config.DCR_IDLE_CLIENT_TTL,
    },
    allowedRedirectSchemes: config.ALLOWED_REDIRECT_SCHEMES,
    signingKeys: {
      reloadInterval: config.SIGNING_KEY_RELOAD_INTERVAL,
      jwksMaxAge: config.JWKS_MAX_AGE,
      resourceServerRefetchCooldown: config.RESOURCE_SERVER_REFETCH_COOLDOWN,
      ...(config.SIGNING_KEY_ACTIVATION_DELAY !== undefined
        ? { activationDelay: config.SIGNING_KEY_ACTIVATION_DELAY }
        : {}),
    },
    securityEventRetention: config.SECURITY_EVENT_RETENTION,
    ...(config.REDIS_URL ? { redisUrl: config.REDIS_URL } : {}),
    ...(host.loginHint ? { loginHint: host.loginHint } : {}),
    clientIdMetadataDocuments: {
      enabled:
        config.CIMD_ENABLED === undefined
          ? getRevision(config.SPEC_REVISION).supports('client-id-metadata-documents')
          : config.CIMD_ENABLED === 'true',
      allowLoopback: config.CIMD_ALLOW_LOOPBACK === 'true',
      ...(host.metadataDocumentFetch ? { fetchOptions: host.metadataDocumentFetch } : {}),
    },
  };
}

function hasLoopbackHost(url: string): boolean {
  try {
    return isLoopbackHost(new URL(url).hostname);
  } catch {
    return false;
  }
}
