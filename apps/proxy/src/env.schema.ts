import { authorizationServerEnvFields, checkAuthorizationServerEnv } from '@portcullis/authorization';
import {
  checkDpopAuthorizationServerEnv,
  dpopAuthorizationServerEnvFields,
} from '@portcullis/extension-dpop';
import { baseEnvSchema, composeExtensions, extensionsEnvField } from '@portcullis/platform';
import { isScopeToken } from '@portcullis/protocol';
import { z } from 'zod';
import { ConnectionsEnvSchema } from './connections/connections.env.js';
import { AVAILABLE_EXTENSIONS } from './extensions.js';
import {
  checkUpstreamProviderEnv,
  defaultUpstreamScopes,
  UpstreamIssuerSchema,
  upstreamProviderEnvFields,
} from './upstream/providers/upstream-provider.env.js';

/** An empty variable (`UPSTREAM_CLIENT_SECRET=`) counts as unset. */
const unsetIfEmpty = (value: unknown) => (value === '' ? undefined : value);

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

/** The proxy's configuration, parsed once at boot; see docs/reference/environment.md and docs/proxy.md. */
export const envSchema = baseEnvSchema({ port: 4200 })
  .extend({
    ...authorizationServerEnvFields('http://localhost:4200'),
    /** How long the consent cookie lets this browser skip the consent page for one client. */
    CONSENT_COOKIE_TTL: z.coerce
      .number()
      .int()
      .min(1)
      .max(10 * 365 * 86_400)
      .default(30 * 86_400),
    /**
     * The upstream's issuer, exactly as it publishes it: a terminating `/` is kept (Auth0's issuers have one), since
     * the discovered metadata's `issuer` must be identical to it (RFC 8414 3.3).
     */
    UPSTREAM_ISSUER: z.preprocess(unsetIfEmpty, UpstreamIssuerSchema.optional()),
    UPSTREAM_CLIENT_ID: z.preprocess(unsetIfEmpty, z.string().min(1).optional()),
    UPSTREAM_CLIENT_SECRET: z.preprocess(unsetIfEmpty, z.string().min(1).optional()),
    ...upstreamProviderEnvFields,
    /** Default: the provider's (`openid` for oidc), with `read:org` for GitHub membership rules. */
    UPSTREAM_SCOPES: z.preprocess(unsetIfEmpty, scopeList.optional()),
    UPSTREAM_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
    /**
     * Providers beyond the sign-in one that people may connect for tools (a JSON object of names to presets, see
     * docs/connections.md); each connection's tokens are kept in the vault and exchanged under its name.
     */
    CONNECTIONS: z.preprocess(unsetIfEmpty, ConnectionsEnvSchema.optional()),
    EXTENSIONS: extensionsEnvField(Object.keys(AVAILABLE_EXTENSIONS)),
    ...dpopAuthorizationServerEnvFields,
  })
  .superRefine(checkDpopAuthorizationServerEnv)
  .superRefine((env, context) => {
    checkAuthorizationServerEnv(env, context);
    checkUpstreamProviderEnv(env, context);
    if (env.NODE_ENV !== 'production' || env.UPSTREAM_PROVIDER !== 'oidc') return;
    for (const name of ['UPSTREAM_ISSUER', 'UPSTREAM_CLIENT_ID'] as const) {
      if (!env[name])
        context.addIssue({ code: 'custom', path: [name], message: 'is required in production' });
    }
  })
  .transform((env) => ({
    ...env,
    UPSTREAM_SCOPES: env.UPSTREAM_SCOPES ?? defaultUpstreamScopes(env),
  }))
  .transform(composeExtensions(AVAILABLE_EXTENSIONS));

export type Env = z.infer<typeof envSchema>;
