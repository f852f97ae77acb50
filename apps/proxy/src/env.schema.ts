import { parseKeyEncryptionKey } from '@portcullis/authorization';
import { IssuerUrlSchema } from '@portcullis/metadata';
import { baseEnvSchema } from '@portcullis/platform';
import { canonicalizeResourceUri, isLoopbackHost, isScopeToken } from '@portcullis/protocol';
import { isRevisionId, LATEST_REVISION, type RevisionId } from '@portcullis/revisions';
import { z } from 'zod';

const seconds = (fallback: number) =>
  z.coerce
    .number()
    .int()
    .min(1)
    .max(10 * 365 * 86_400)
    .default(fallback);

/** An empty variable (`UPSTREAM_CLIENT_SECRET=`) counts as unset. */
const unsetIfEmpty = (value: unknown) => (value === '' ? undefined : value);

/**
 * An issuer identifier: https, or http on a loopback host (RFC 8414 2; spec 5.6.1); no query, fragment or
 * trailing slash, since it is compared byte for byte.
 */
const issuer = z
  .string()
  .refine(
    (value) => IssuerUrlSchema.safeParse(value).success,
    'must be an https URL (http only on a loopback host) without query or fragment',
  )
  .refine((value) => !value.endsWith('/'), 'must not end with /');

const ResourceSchema = z.object({
  uri: z.string().refine((uri) => {
    try {
      return canonicalizeResourceUri(uri) === uri;
    } catch {
      return false;
    }
  }, 'must be a canonical resource URI (lowercase scheme and host, no fragment, no trailing slash)'),
  name: z.string().min(1).optional(),
  scopes_supported: z.array(z.string().refine(isScopeToken, 'must be a scope token')).min(1),
  scope_hierarchy: z.record(z.string(), z.array(z.string())).optional(),
});

/** The default resource: the local protected server and its notes scopes. */
export const DEFAULT_RESOURCES = [
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

const scopeList = z
  .string()
  .transform((text) => text.split(' ').filter(Boolean))
  .refine(
    (scopes) => scopes.length > 0 && scopes.every(isScopeToken),
    'must be space-separated scope tokens',
  );

/**
 * Without `UPSTREAM_ISSUER` (development only; production requires it) the upstream is the local authorization
 * server and the client its development setup seeds, with that client's published development secret.
 */
export const DEVELOPMENT_UPSTREAM = {
  issuer: 'http://localhost:4000',
  clientId: 'portcullis-proxy',
  clientSecret: 'portcullis-proxy-development-secret',
} as const;

/** The proxy's configuration, parsed once at boot; see the README's proxy section. */
export const envSchema = baseEnvSchema({ port: 4200 })
  .extend({
    ISSUER: issuer.default('http://localhost:4200'),
    SPEC_REVISION: z
      .string()
      .refine(isRevisionId, 'must be 2025-06-18 or 2026-07-28')
      .default(LATEST_REVISION)
      .transform((value) => value as RevisionId),
    RESOURCES: resources.optional(),
    ACCESS_TOKEN_TTL: seconds(300),
    ID_TOKEN_TTL: seconds(300),
    AUTHORIZATION_CODE_TTL: seconds(60),
    REFRESH_TOKEN_IDLE_TTL: seconds(14 * 86_400),
    REFRESH_TOKEN_ABSOLUTE_TTL: seconds(30 * 86_400),
    SESSION_TTL: seconds(8 * 3600),
    /** How long the consent cookie lets this browser skip the consent page for one client. */
    CONSENT_COOKIE_TTL: seconds(30 * 86_400),
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
    COOKIE_SECRET: z
      .string()
      .min(32, 'must be at least 32 characters (e.g. `openssl rand -base64 32`)')
      .optional(),
    REDIS_URL: z.string().url('must be a redis:// URL').optional(),
    RATE_LIMIT_TOKEN: z.coerce.number().int().min(1).default(120),
    RATE_LIMIT_LOGIN: z.coerce.number().int().min(1).default(20),
    RATE_LIMIT_REGISTER: z.coerce.number().int().min(1).default(20),
    // MCP clients reach the proxy by registering themselves (RFC 7591) or by a client ID metadata document.
    DCR_ENABLED: z.enum(['true', 'false']).default('true'),
    DCR_INITIAL_ACCESS_TOKEN: z.string().min(32, 'must be at least 32 characters').optional(),
    SIGNING_KEY_RELOAD_INTERVAL: seconds(30),
    CIMD_ENABLED: z.enum(['true', 'false']).optional(),
    CIMD_ALLOW_LOOPBACK: z.enum(['true', 'false']).default('false'),
    UPSTREAM_ISSUER: z.preprocess(unsetIfEmpty, issuer.optional()),
    UPSTREAM_CLIENT_ID: z.preprocess(unsetIfEmpty, z.string().min(1).optional()),
    UPSTREAM_CLIENT_SECRET: z.preprocess(unsetIfEmpty, z.string().min(1).optional()),
    UPSTREAM_SCOPES: z.preprocess(unsetIfEmpty, scopeList.default(['openid'])),
    UPSTREAM_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  })
  .superRefine((env, context) => {
    // details.md: only an authorization server that itself runs on loopback may accept loopback documents.
    if (env.CIMD_ALLOW_LOOPBACK === 'true' && !isLoopbackHost(new URL(env.ISSUER).hostname)) {
      context.addIssue({
        code: 'custom',
        path: ['CIMD_ALLOW_LOOPBACK'],
        message: 'is only accepted when the ISSUER host is loopback',
      });
    }
    if (env.NODE_ENV !== 'production') return;
    for (const name of [
      'COOKIE_SECRET',
      'KEY_ENCRYPTION_KEY',
      'UPSTREAM_ISSUER',
      'UPSTREAM_CLIENT_ID',
    ] as const) {
      if (!env[name])
        context.addIssue({ code: 'custom', path: [name], message: 'is required in production' });
    }
  });

export type Env = z.infer<typeof envSchema>;
