import ipaddr from 'ipaddr.js';
import { isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import type { DatabaseTarget } from '@portcullis/persistence';

/** What apps read their configuration from: `process.env` in production, a plain record in tests. */
export type EnvSource = Readonly<Record<string, string | undefined>>;

/** The configuration is invalid; the message is one line naming each bad variable. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const port = z.coerce
  .number({ error: 'must be a number' })
  .int('must be a whole number')
  .min(0, 'must be from 0 to 65535')
  .max(65535, 'must be from 0 to 65535');

const databaseUrl = z
  .string()
  .trim()
  .refine((value) => {
    try {
      const url = new URL(value);
      return (url.protocol === 'postgresql:' || url.protocol === 'postgres:') && url.hostname !== '';
    } catch {
      return false;
    }
  }, 'must be a postgresql://user:password@host:port/database URL');

/** An empty variable (`PORT=`) counts as unset, so its default applies. */
const unsetIfEmpty = (value: unknown) => (value === '' ? undefined : value);
/** The same for a value of blanks only, and the blanks around a value trimmed: `' '` is unset, not 0. */
const unsetIfBlank = (value: unknown) =>
  typeof value === 'string' ? (value.trim() === '' ? undefined : value.trim()) : value;

/** The variables every Portcullis app reads, to be extended by each app's `env.schema.ts`. */
/** `TRUST_PROXY`: IPv4 or IPv6 addresses and CIDR ranges, comma-separated. */
const trustedProxies = z
  .string()
  .transform((text) =>
    text
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean),
  )
  .superRefine((entries, context) => {
    const bad = entries.find((entry) => !ipaddr.isValid(entry) && !isCidr(entry));
    if (entries.length === 0 || bad !== undefined) {
      context.addIssue({
        code: 'custom',
        message: `must be IP addresses or CIDR ranges, comma-separated${bad === undefined ? '' : ` (not ${JSON.stringify(bad)})`}`,
      });
    }
  });

function isCidr(entry: string): boolean {
  try {
    ipaddr.parseCIDR(entry);
    return true;
  } catch {
    return false;
  }
}

export function baseEnvSchema(defaults: { port: number }) {
  return z.object({
    NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
    HOST: z.string().min(1).default('localhost'),
    PORT: z.preprocess(unsetIfEmpty, port.default(defaults.port)),
    LOG_LEVEL: z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(', ')}` }).default('info'),
    DATABASE_URL: z.preprocess(unsetIfEmpty, databaseUrl.optional()),
    PGLITE_DIR: z.string().min(1).optional(),
    SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
    DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
    DATABASE_POOL_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5_000),
    /** Connections opened at boot and kept open while idle (at most DATABASE_POOL_SIZE). */
    DATABASE_POOL_MIN: z.preprocess(
      unsetIfBlank,
      z
        .string()
        .regex(/^\d+$/, 'must be a whole number')
        .transform(Number)
        .pipe(z.number().max(200))
        .optional(),
    ),
    METRICS: z.enum(['on', 'off']).default('on'),
    /** Where the modules `EXTENSIONS` names are installed (their `node_modules`); default the working directory. */
    EXTENSIONS_DIR: z.preprocess(unsetIfEmpty, z.string().optional()),
    METRICS_TOKEN: z.preprocess(
      unsetIfEmpty,
      z.string().min(16, 'must be at least 16 characters (e.g. `openssl rand -base64 24`)').optional(),
    ),
    /** `true`: production on the embedded database, on purpose (see {@link checkProductionEnv}). */
    ALLOW_EMBEDDED_DATABASE: z.preprocess(
      unsetIfEmpty,
      z.enum(['true', 'false'], { error: 'must be true or false' }).optional(),
    ),
    /**
     * The reverse proxies (load balancers) in front of the app, as comma-separated addresses or CIDR ranges: a
     * request from one of them is taken to come from the address its `X-Forwarded-For` names (for rate limits, logs
     * and security events), and `X-Forwarded-Proto`/`-Host` are believed; from anyone else they are ignored. Unset:
     * every request comes from its connection's peer.
     */
    TRUST_PROXY: z.preprocess(unsetIfEmpty, trustedProxies.optional()),
    /** `true`: one instance only, so state kept in this process (rate limits, DPoP proofs) is enough without Redis. */
    SINGLE_INSTANCE: z.preprocess(
      unsetIfEmpty,
      z.enum(['true', 'false'], { error: 'must be true or false' }).optional(),
    ),
  });
}

export type BaseEnv = z.infer<ReturnType<typeof baseEnvSchema>>;

/**
 * Parses the environment with an app's schema. Unknown variables are ignored; a bad one throws a
 * {@link ConfigError} whose one-line message names the variable and what it must be, never echoing
 * secrets back.
 */
export function parseEnv<Schema extends z.ZodType>(schema: Schema, env: EnvSource): z.infer<Schema> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const name = issue.path.map(String).join('.') || '(environment)';
    return `${name} ${issue.message}`;
  });
  throw new ConfigError(`invalid configuration: ${problems.join('; ')}`);
}

/**
 * The rules across variables every app keeps: no more connections kept than the pool holds; in production `/metrics` is either behind `METRICS_TOKEN` or off, never
 * open to whoever reaches the port.
 *
 * @throws ConfigError naming the variable
 */
export function checkBaseEnv(env: BaseEnv): void {
  if (env.DATABASE_POOL_MIN !== undefined && env.DATABASE_POOL_MIN > env.DATABASE_POOL_SIZE) {
    throw new ConfigError(
      `invalid configuration: DATABASE_POOL_MIN (${env.DATABASE_POOL_MIN}) must be at most DATABASE_POOL_SIZE (${env.DATABASE_POOL_SIZE})`,
    );
  }
  if (env.NODE_ENV === 'production' && env.METRICS === 'on' && !env.METRICS_TOKEN) {
    throw new ConfigError(
      'invalid configuration: METRICS_TOKEN is required in production (or set METRICS=off)',
    );
  }
}

/**
 * A variable production must set, because its development default is wrong anywhere else; `unless` names the
 * variable whose `true` says the default is meant (`ALLOW_EMBEDDED_DATABASE`, `SINGLE_INSTANCE`).
 */
export interface ProductionRequirement {
  readonly name: string;
  /** Why, in a few words: what the development default is. */
  readonly why: string;
  readonly unless?: string;
  /** What is wrong with the value set, in production (`must be https ...`), or `undefined` when nothing is. */
  readonly invalid?: (value: string, env: EnvSource) => string | undefined;
}

/** The requirement every app has: its own database, not the embedded one, unless `ALLOW_EMBEDDED_DATABASE=true`. */
const DATABASE_REQUIREMENT: ProductionRequirement = {
  name: 'DATABASE_URL',
  why: 'without it the data lives in an embedded database in the working directory',
  unless: 'ALLOW_EMBEDDED_DATABASE',
};

/**
 * Production never starts on a development default: with `NODE_ENV=production` each of `requirements` (and
 * `DATABASE_URL`) must be set in the environment itself, not left to its default, unless its `unless` variable is
 * `true`. Every missing one is named in one error.
 *
 * @throws ConfigError naming each variable
 */
export function checkProductionEnv(
  env: EnvSource,
  parsed: Pick<BaseEnv, 'NODE_ENV'>,
  requirements: readonly ProductionRequirement[],
): void {
  if (parsed.NODE_ENV !== 'production') return;
  const problems = [DATABASE_REQUIREMENT, ...requirements].flatMap(({ name, why, unless, invalid }) => {
    const value = env[name];
    if (value === undefined || value === '') {
      if (unless !== undefined && env[unless] === 'true') return [];
      return [`${name} is required in production (${why}${unless ? `; or set ${unless}=true` : ''})`];
    }
    const problem = invalid?.(value, env);
    return problem === undefined ? [] : [`${name} ${problem}`];
  });
  if (problems.length > 0) throw new ConfigError(`invalid configuration: ${problems.join('; ')}`);
}

/**
 * Where an app keeps its data: PostgreSQL when `DATABASE_URL` is set, else embedded PGlite under
 * `PGLITE_DIR` (default `.data/<app>` in the working directory).
 */
export function databaseTargetFromEnv(env: BaseEnv, appName: string, cwd = process.cwd()): DatabaseTarget {
  if (env.DATABASE_URL) return { url: env.DATABASE_URL };
  const dir = env.PGLITE_DIR ?? `.data/${appName}`;
  return { pgliteDir: isAbsolute(dir) ? dir : resolve(cwd, dir) };
}
