import {
  baseEnvSchema,
  composeExtensions,
  extensionsEnvField,
  isRedisUrl,
  REDIS_URL_FORMAT,
} from '@portcullis/platform';
import { EndpointUrlSchema } from '@portcullis/metadata';
import { canonicalizeResourceUri, CONNECTION_NAME, issuerIdentifierProblem } from '@portcullis/protocol';
import { webOriginProblem } from '@portcullis/resource-server';
import { LATEST_REVISION, REVISIONS } from '@portcullis/revisions';
import { z } from 'zod';
import { SharedReplayStore } from './dpop/shared-replay.store.js';
import { AVAILABLE_EXTENSIONS } from './extensions.js';

/** An empty variable (`RESOURCE_URI=`) counts as unset, so its default applies. */
const unsetIfEmpty = (value: unknown) => (value === '' ? undefined : value);

function isResourceUri(value: string): boolean {
  try {
    return EndpointUrlSchema.safeParse(canonicalizeResourceUri(value)).success;
  } catch {
    return false;
  }
}

/** The protected server's configuration, parsed once at boot; see docs/reference/environment.md. */
export const envSchema = baseEnvSchema({ port: 4100 })
  .extend({
    /** The canonical URI of the MCP endpoint: the PRM `resource` and the audience tokens must carry. */
    RESOURCE_URI: z.preprocess(
      unsetIfEmpty,
      z
        .string()
        .default('http://localhost:4100/mcp')
        .refine(
          isResourceUri,
          'must be an absolute https URI (http only on loopback) without fragment or userinfo',
        ),
    ),
    /** The issuer of the authorization server whose tokens are accepted. */
    AUTHORIZATION_SERVER: z.preprocess(
      unsetIfEmpty,
      z
        .string()
        .default('http://localhost:4000')
        .superRefine((value, context) => {
          // The same rule the authorization server applies to its ISSUER, so a value one refuses the other does too.
          const problem = issuerIdentifierProblem(value);
          if (problem) context.addIssue({ code: 'custom', message: problem });
        }),
    ),
    /**
     * More issuers whose tokens are accepted (space-separated), published after AUTHORIZATION_SERVER in
     * `authorization_servers`: the proxy, in the development stack.
     */
    EXTRA_AUTHORIZATION_SERVERS: z.preprocess(
      unsetIfEmpty,
      z
        .string()
        .default('')
        .transform((value) => value.split(' ').filter(Boolean))
        .superRefine((issuers, context) => {
          for (const issuer of issuers) {
            const problem = issuerIdentifierProblem(issuer);
            if (problem) context.addIssue({ code: 'custom', message: `${issuer} ${problem}` });
          }
        }),
    ),
    /**
     * Comma-separated web origins whose pages may call the server from a browser (CORS, and the MCP transport's
     * Origin check). Unset: every loopback origin in development, none in production.
     */
    CORS_ORIGINS: z.preprocess(
      unsetIfEmpty,
      z
        .string()
        .transform((value) =>
          value
            .split(',')
            .map((origin) => origin.trim())
            .filter(Boolean),
        )
        .superRefine((origins, context) => {
          for (const origin of origins) {
            const problem = webOriginProblem(origin);
            if (problem) context.addIssue({ code: 'custom', message: `${origin} ${problem}` });
          }
        })
        .optional(),
    ),
    /** The MCP authorization revision whose resource-server behaviour applies. */
    SPEC_REVISION: z.preprocess(
      unsetIfEmpty,
      z.enum(REVISIONS, { error: `must be one of ${REVISIONS.join(', ')}` }).default(LATEST_REVISION),
    ),
    /** `auto` (JWTs verified locally, opaque tokens introspected), `jwt` or `introspection`. */
    TOKEN_VALIDATION: z.preprocess(
      unsetIfEmpty,
      z
        .enum(['auto', 'jwt', 'introspection'], { error: 'must be auto, jwt or introspection' })
        .default('auto'),
    ),
    /**
     * How long an accepted token is remembered, in seconds (never past its `exp`); 0 remembers nothing. With
     * introspection, a token revoked at the authorization server is refused within this time (RFC 7662 4).
     */
    TOKEN_CACHE_TTL: z.preprocess(
      unsetIfEmpty,
      z.coerce
        .number({ error: 'must be a number of seconds' })
        .int('must be a whole number of seconds')
        .min(0, 'must be from 0 to 86400 seconds')
        .max(86_400, 'must be from 0 to 86400 seconds')
        .default(30),
    ),
    /** How long the authorization server's key set is used before it is fetched again, in seconds. */
    JWKS_CACHE_TTL: z.preprocess(
      unsetIfEmpty,
      z.coerce
        .number({ error: 'must be a number of seconds' })
        .int('must be a whole number of seconds')
        .min(1, 'must be from 1 to 86400 seconds')
        .max(86_400, 'must be from 1 to 86400 seconds')
        .default(600),
    ),
    /**
     * After a key set fetch, how long a token naming a `kid` the set lacks is refused (`invalid_token`) without
     * fetching again, in seconds: a flood of forged tokens costs one fetch per cooldown. It must not exceed the
     * authorization server's `SIGNING_KEY_ACTIVATION_DELAY` minus its `SIGNING_KEY_RELOAD_INTERVAL` (a Portcullis
     * authorization server assumes 30 s unless its `RESOURCE_SERVER_REFETCH_COOLDOWN` says otherwise): longer, and a
     * rotated key may sign while this server still holds a key set fetched without it, refusing good tokens.
     */
    JWKS_REFETCH_COOLDOWN: z.preprocess(
      unsetIfEmpty,
      z.coerce
        .number({ error: 'must be a number of seconds' })
        .int('must be a whole number of seconds')
        .min(0, 'must be from 0 to 300 seconds')
        .max(300, 'must be from 0 to 300 seconds')
        .default(30),
    ),
    /**
     * The provider API naming the user of a token there (GitHub's `https://api.github.com/user`, an OpenID provider's
     * UserInfo endpoint): with it, the tool `upstream_whoami` calls it as the user, with the token the authorization
     * server's RFC 8693 exchange gives this server (which needs INTROSPECTION_CLIENT_ID, a client registered with
     * `--grant token-exchange`).
     */
    UPSTREAM_USER_API_URL: z.preprocess(unsetIfEmpty, EndpointUrlSchema.optional()),
    /**
     * The connection at the authorization server whose token UPSTREAM_USER_API_URL takes (the RFC 8693 `audience` of
     * the exchange): `upstream` (the default) for the provider people sign in with at the proxy, or the name of one
     * of the proxy's CONNECTIONS (`github`).
     */
    UPSTREAM_CONNECTION: z.preprocess(
      unsetIfEmpty,
      z
        .string()
        .regex(CONNECTION_NAME, 'must be a connection name (lowercase letters, digits, -)')
        .default('upstream'),
    ),
    /** The protected server's own client credentials for RFC 7662 introspection. */
    INTROSPECTION_CLIENT_ID: z.preprocess(unsetIfEmpty, z.string().optional()),
    INTROSPECTION_CLIENT_SECRET: z.preprocess(unsetIfEmpty, z.string().optional()),
    /**
     * Comma-separated names of AVAILABLE_EXTENSIONS and modules installed in EXTENSIONS_DIR, composed into the
     * registry the resource server and the MCP server's `capabilities.extensions` use; unset or empty composes none.
     */
    EXTENSIONS: extensionsEnvField(Object.keys(AVAILABLE_EXTENSIONS)),
    /** With `dpop`: refuse unbound tokens and Bearer presentations (PRM `dpop_bound_access_tokens_required`). */
    DPOP_REQUIRED: z.preprocess(
      unsetIfEmpty,
      z.enum(['true', 'false'], { error: 'must be true or false' }).optional(),
    ),
    /** With `dpop`: require the server's nonce in every proof (RFC 9449 Section 9). */
    DPOP_NONCE: z.preprocess(unsetIfEmpty, z.enum(['on', 'off'], { error: 'must be on or off' }).optional()),
    /**
     * With `DPOP_NONCE=on`: the nonce HMAC key, base64url of at least 32 bytes, the same on every instance; each
     * process makes its own without it (its nonces are then good at that process only).
     */
    DPOP_NONCE_SECRET: z.preprocess(
      unsetIfEmpty,
      z
        .string()
        .regex(/^[A-Za-z0-9_-]+$/, 'must be base64url (A-Z a-z 0-9 - _, no padding)')
        .transform((value) => new Uint8Array(Buffer.from(value, 'base64url')))
        .refine((secret) => secret.length >= 32, 'must decode to at least 32 bytes')
        .optional(),
    ),
    /** With `dpop`: how far a proof's `iat` may be from now, in seconds (RFC 9449 Section 11.1). */
    DPOP_PROOF_MAX_AGE: z.preprocess(
      unsetIfEmpty,
      z.coerce
        .number({ error: 'must be a number of seconds' })
        .int('must be a whole number of seconds')
        .min(1, 'must be from 1 to 300 seconds')
        .max(300, 'must be from 1 to 300 seconds')
        .optional(),
    ),
    /**
     * Redis shared by every instance: with `dpop`, the proofs' `jti`s, so a replay to another instance is caught. One
     * server (redis://, rediss://) or the sentinels watching one (redis+sentinel://), which a failover follows.
     */
    REDIS_URL: z.preprocess(unsetIfEmpty, z.string().refine(isRedisUrl, REDIS_URL_FORMAT).optional()),
  })
  .superRefine((env, context) => {
    if (Boolean(env.INTROSPECTION_CLIENT_ID) !== Boolean(env.INTROSPECTION_CLIENT_SECRET)) {
      context.addIssue({
        code: 'custom',
        path: ['INTROSPECTION_CLIENT_SECRET'],
        message: 'and INTROSPECTION_CLIENT_ID must be set together',
      });
    }
    if (env.UPSTREAM_USER_API_URL && !env.INTROSPECTION_CLIENT_ID) {
      context.addIssue({
        code: 'custom',
        path: ['UPSTREAM_USER_API_URL'],
        message:
          'needs INTROSPECTION_CLIENT_ID and INTROSPECTION_CLIENT_SECRET: the token exchange authenticates with them',
      });
    }
    if (env.TOKEN_VALIDATION === 'introspection' && !env.INTROSPECTION_CLIENT_ID) {
      context.addIssue({
        code: 'custom',
        path: ['TOKEN_VALIDATION'],
        message: 'introspection needs INTROSPECTION_CLIENT_ID and INTROSPECTION_CLIENT_SECRET',
      });
    }
    if (!env.EXTENSIONS.includes('dpop')) {
      for (const name of [
        'DPOP_REQUIRED',
        'DPOP_NONCE',
        'DPOP_NONCE_SECRET',
        'DPOP_PROOF_MAX_AGE',
      ] as const) {
        if (env[name] !== undefined) {
          context.addIssue({
            code: 'custom',
            path: [name],
            message: 'is set but EXTENSIONS does not include dpop',
          });
        }
      }
    } else if (env.DPOP_NONCE_SECRET !== undefined && env.DPOP_NONCE !== 'on') {
      context.addIssue({
        code: 'custom',
        path: ['DPOP_NONCE_SECRET'],
        message: 'is set but DPOP_NONCE is not on',
      });
    }
  })
  .transform((env) => ({
    ...env,
    // Listed origins replace the default; without them development allows its loopback pages, production none.
    BROWSER_ORIGINS:
      env.CORS_ORIGINS !== undefined
        ? { origins: env.CORS_ORIGINS }
        : { loopback: env.NODE_ENV !== 'production' },
    DPOP_REQUIRED: env.DPOP_REQUIRED === 'true',
    DPOP_NONCE: env.DPOP_NONCE === 'on',
    DPOP_PROOF_MAX_AGE: env.DPOP_PROOF_MAX_AGE ?? 60,
    // Only DPoP uses Redis here; the connection opens when the app boots (see DpopReplayModule).
    DPOP_REPLAY_STORE:
      env.REDIS_URL !== undefined && env.EXTENSIONS.includes('dpop')
        ? new SharedReplayStore(env.REDIS_URL)
        : undefined,
  }))
  .transform(composeExtensions(AVAILABLE_EXTENSIONS));

export type Env = z.infer<typeof envSchema>;
