import { parseKeyEncryptionKey } from '@portcullis/authorization';
import { isLoopbackHostname } from '@portcullis/metadata';
import { baseEnvSchema } from '@portcullis/platform';
import { canonicalizeResourceUri, isScopeToken } from '@portcullis/protocol';
import { isRevisionId, LATEST_REVISION, type RevisionId } from '@portcullis/revisions';
import { z } from 'zod';

const seconds = (fallback: number) => z.coerce.number().int().min(1).max(10 * 365 * 86_400).default(fallback);

/**
 * `ISSUER`: an absolute https URL (RFC 8414 2; spec 5.6.1), or http on a loopback host for development. No query,
 * fragment or userinfo. Published byte for byte.
 */
const issuer = z.string().superRefine((value, context) => {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    context.addIssue({ code: 'custom', message: 'must be an absolute URL' });
    return;
  }
  if (url.search || url.hash || url.username || url.password || value.includes('#') || value.includes('?')) {
    context.addIssue({ code: 'custom', message: 'must not have a query, fragment or userinfo' });
  } else if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHostname(url.hostname))) {
    context.addIssue({ code: 'custom', message: 'must be https (http only on a loopback host)' });
  } else if (value.endsWith('/')) {
    context.addIssue({ code: 'custom', message: 'must not end with /' });
  }
});

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

const secret = (name: string) =>
  z
    .string()
    .min(32, `must be at least 32 characters (e.g. \`openssl rand -base64 32\`)`)
    .describe(name)
    .optional();

/** The authorization server's configuration, parsed once at boot; see the README's configuration table. */
export const envSchema = baseEnvSchema({ port: 4000 })
  .extend({
    ISSUER: issuer.default('http://localhost:4000'),
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
    KEY_ENCRYPTION_KEY: z
      .string()
      .transform((text, context) => {
        const key = parseKeyEncryptionKey(text);
        if (!key) {
          context.addIssue({ code: 'custom', message: 'must be 32 bytes as 64 hex digits or base64 (openssl rand -base64 32)' });
          return z.NEVER;
        }
        return key;
      })
      .optional(),
    COOKIE_SECRET: secret('COOKIE_SECRET'),
    DEMO_PASSWORD: z.string().min(1).default('demo'),
    SEED_DEMO_USER: z.enum(['auto', 'true', 'false']).default('auto'),
    REDIS_URL: z.string().url('must be a redis:// URL').optional(),
    RATE_LIMIT_TOKEN: z.coerce.number().int().min(1).default(120),
    RATE_LIMIT_LOGIN: z.coerce.number().int().min(1).default(20),
    RATE_LIMIT_REGISTER: z.coerce.number().int().min(1).default(20),
    // RFC 7591 registration: on under both revisions (2026-07-28 deprecates it, see the README).
    DCR_ENABLED: z.enum(['true', 'false']).default('true'),
    DCR_INITIAL_ACCESS_TOKEN: secret('DCR_INITIAL_ACCESS_TOKEN'),
    SIGNING_KEY_RELOAD_INTERVAL: seconds(30),
    CIMD_ENABLED: z.enum(['true', 'false']).optional(),
    CIMD_ALLOW_LOOPBACK: z.enum(['true', 'false']).default('false'),
  })
  .superRefine((env, context) => {
    // details.md: only an authorization server that itself runs on loopback may accept loopback documents.
    if (env.CIMD_ALLOW_LOOPBACK === 'true' && !hasLoopbackHost(env.ISSUER)) {
      context.addIssue({
        code: 'custom',
        path: ['CIMD_ALLOW_LOOPBACK'],
        message: 'is only accepted when the ISSUER host is loopback',
      });
    }
    if (env.NODE_ENV !== 'production') return;
    if (!env.COOKIE_SECRET) {
      context.addIssue({ code: 'custom', path: ['COOKIE_SECRET'], message: 'is required in production' });
    }
    if (!env.KEY_ENCRYPTION_KEY) {
      context.addIssue({ code: 'custom', path: ['KEY_ENCRYPTION_KEY'], message: 'is required in production' });
    }
  });

export type Env = z.infer<typeof envSchema>;

function hasLoopbackHost(url: string): boolean {
  try {
    return isLoopbackHostname(new URL(url).hostname);
  } catch {
    return false;
  }
}

/** The demo user exists in development on the embedded database, or wherever SEED_DEMO_USER=true says. */
export function seedsDemoUser(config: Env): boolean {
  if (config.SEED_DEMO_USER !== 'auto') return config.SEED_DEMO_USER === 'true';
  return config.NODE_ENV === 'development' && !config.DATABASE_URL;
}
