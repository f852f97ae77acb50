import type { ResourceServerOptions } from '@portcullis/resource-server';
import type { Env } from './env.schema.js';
import { NOTES_SCOPE_HIERARCHY, NOTES_SCOPES } from './notes/notes.scopes.js';

/**
 * The protected server's resource-server settings, from its configuration: its MCP endpoint is the resource, and
 * the notes scopes are what it publishes and enforces.
 */
export function resourceServerOptions(env: Env): ResourceServerOptions {
  return {
    resource: env.RESOURCE_URI,
    authorizationServers: [...new Set([env.AUTHORIZATION_SERVER, ...env.EXTRA_AUTHORIZATION_SERVERS])],
    scopesSupported: NOTES_SCOPES,
    scopeHierarchy: NOTES_SCOPE_HIERARCHY,
    revision: env.SPEC_REVISION,
    resourceName: 'Portcullis notes',
    extensions: env.EXTENSIONS,
    browserOrigins: env.BROWSER_ORIGINS,
    tokens: {
      mode: env.TOKEN_VALIDATION,
      cacheTtlSeconds: env.TOKEN_CACHE_TTL,
      jwks: { cacheMaxAgeMs: env.JWKS_CACHE_TTL * 1000, cooldownMs: env.JWKS_REFETCH_COOLDOWN * 1000 },
      ...(env.INTROSPECTION_CLIENT_ID && env.INTROSPECTION_CLIENT_SECRET
        ? {
            introspection: {
              clientId: env.INTROSPECTION_CLIENT_ID,
              clientSecret: env.INTROSPECTION_CLIENT_SECRET,
            },
          }
        : {}),
    },
  };
}
