/**
 * The resource server's configuration, checked once at boot so a misconfiguration stops the app instead of
 * weakening it at run time.
 *
 * Rules kept here:
 * - MCP "Authorization Server Location", RFC 9728 Section 2: `authorization_servers` has at least one issuer; each
 *   is an RFC 8414 Section 2 issuer by the protocol lib's one rule for configured issuers (https, or http on
 *   loopback; no query, fragment, userinfo or trailing slash).
 * - MCP "Canonical Server URI", RFC 8707 Section 2: `resource` is canonicalised once, and that one string is both
 *   the metadata's `resource` and the audience every token must carry.
 * - MCP 2026-07-28 "Refresh Tokens": `offline_access` is never listed in `scopes_supported` or challenges.
 * - RFC 8725 Sections 3.1 and 3.2: an explicit allow-list of asymmetric JWS algorithms; `none` and `HS*` refused.
 * - RFC 7662 Section 4: a validated token is remembered for a bounded time (`tokens.cacheTtlSeconds`, 0 to one
 *   day), so a revocation at the authorization server reaches an introspecting resource within it.
 * - Fetch CORS protocol, RFC 6454 Section 6.1: `browserOrigins.origins` are origins as browsers serialise them, so
 *   the byte-for-byte comparison with an `Origin` header cannot be fooled by another spelling.
 */
import { ExtensionRegistry } from '@portcullis/extensions';
import { EndpointUrlSchema } from '@portcullis/metadata';
import {
  ASYMMETRIC_SIGNING_ALGORITHMS,
  canonicalizeResourceUri,
  issuerIdentifierProblem,
  isScopeToken,
  protectedResourceMetadataUrls,
  type ScopeHierarchy,
} from '@portcullis/protocol';
import { getRevision, LATEST_REVISION, type Revision } from '@portcullis/revisions';
import { BrowserOrigins } from '../http/browser-origins.js';
import type { ResourceServerOptions, TokenValidationMode } from './resource-server.options.js';

/** The options are unusable; the message names the option and what it must be. */
export class ResourceServerConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ResourceServerConfigError';
  }
}

/**
 * Every asymmetric JWS algorithm jose verifies: the protocol lib's list (RFC 7518 Section 3.1, RFC 8037) and the
 * fully specified `Ed25519` (RFC 9864). The allow-list is a subset of these.
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc8725#section-3.1 RFC 8725 Section 3.1}
 */
export const ASYMMETRIC_JWS_ALGORITHMS = Object.freeze([
  ...ASYMMETRIC_SIGNING_ALGORITHMS,
  'Ed25519',
] as const);

/** The configuration every component of the module reads, after validation and defaults. */
export interface ResourceServerConfig {
  /** Canonical resource URI: the PRM `resource` and the only accepted audience. */
  readonly resource: string;
  /** The path-inserted Protected Resource Metadata URL (RFC 9728 Section 3.1). */
  readonly metadataUrl: string;
  /** Its path, the route the metadata is served on. */
  readonly metadataPath: string;
  readonly authorizationServers: readonly string[];
  readonly scopesSupported: readonly string[];
  readonly scopeHierarchy: ScopeHierarchy;
  readonly revision: Revision;
  readonly resourceName?: string;
  readonly extensions: ExtensionRegistry;
  readonly tokens: ResolvedTokenOptions;
  /** The browser origins allowed to call the resource: CORS grants and the MCP Origin check read this one list. */
  readonly browserOrigins: BrowserOrigins;
}

/** {@link TokenOptions} with every default applied. */
export interface ResolvedTokenOptions {
  readonly mode: TokenValidationMode;
  readonly algorithms: readonly string[];
  readonly clockSkewSeconds: number;
  readonly maxTokenLength: number;
  readonly cacheMaxEntries: number;
  readonly cacheTtlSeconds: number;
  readonly jwks: {
    readonly cooldownMs: number;
    readonly cacheMaxAgeMs: number;
    readonly staleIfErrorMs: number;
    readonly timeoutMs: number;
  };
  readonly discovery: {
    readonly timeoutMs: number;
    readonly maxAgeMs: number;
    readonly failureBackoffMs: number;
  };
  readonly introspection?: {
    readonly clientId: string;
    readonly clientSecret: string;
    readonly endpoint?: string;
    readonly issuer: string;
  };
}

// Characters a router reads as syntax (path-to-regexp, find-my-way); a resource path containing them could not be
// served verbatim, so it is refused rather than silently matched differently.
const ROUTER_SYNTAX = /[:*?(){}+!]/;

function fail(message: string): never {
  throw new ResourceServerConfigError(`resource server: ${message}`);
}

function duration(value: number | undefined, fallback: number, name: string, max = 86_400_000): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 0 || value > max)
    fail(`${name} must be a whole number from 0 to ${max}`);
  return value;
}

function resolveResource(resource: string): { resource: string; metadataUrl: string; metadataPath: string } {
  let canonical: string;
  try {
    canonical = canonicalizeResourceUri(resource);
  } catch {
    fail(
      'resource must be an absolute http(s) URI without fragment or userinfo (MCP "Canonical Server URI")',
    );
  }
  if (!EndpointUrlSchema.safeParse(canonical).success) {
    fail('resource must be https, or http on a loopback host (MCP "Communication Security")');
  }
  // The path-inserted URL comes first (RFC 9728 Section 3.1); it is the only one this resource serves.
  const metadataUrl = protectedResourceMetadataUrls(canonical)[0] ?? fail('resource has no metadata URL');
  const metadataPath = new URL(metadataUrl).pathname;
  if (ROUTER_SYNTAX.test(metadataPath)) fail(`resource path contains a character routers treat as syntax`);
  return { resource: canonical, metadataUrl, metadataPath };
}

function resolveIssuers(issuers: readonly string[] | undefined): string[] {
  if (!Array.isArray(issuers) || issuers.length === 0) {
    fail(
      'authorizationServers must list at least one issuer ' +
        '(MCP "Authorization Server Location": authorization_servers is required)',
    );
  }
  for (const issuer of issuers) {
    const problem = typeof issuer === 'string' ? issuerIdentifierProblem(issuer) : 'must be a string';
    if (problem) fail(`authorizationServers: "${String(issuer)}" is not an issuer: it ${problem}`);
  }
  return [...new Set(issuers)];
}

function resolveScopes(scopes: readonly string[] | undefined): string[] {
  const list = [...new Set(scopes ?? [])];
  for (const scope of list) {
    if (!isScopeToken(scope)) fail(`scopesSupported: "${scope}" is not an RFC 6749 scope-token`);
    if (scope === 'offline_access')
      fail('scopesSupported must not list offline_access (MCP 2026-07-28 "Refresh Tokens")');
  }
  return list;
}

function resolveHierarchy(hierarchy: ScopeHierarchy | undefined): ScopeHierarchy {
  const resolved: Record<string, readonly string[]> = {};
  for (const [broad, narrower] of Object.entries(hierarchy ?? {})) {
    if (!isScopeToken(broad) || !Array.isArray(narrower) || !narrower.every(isScopeToken)) {
      fail(`scopeHierarchy: "${broad}" must map a scope-token to a list of scope-tokens`);
    }
    resolved[broad] = Object.freeze([...narrower]);
  }
  return Object.freeze(resolved);
}

function resolveAlgorithms(algorithms: readonly string[] | undefined): string[] {
  if (algorithms === undefined) return [...ASYMMETRIC_JWS_ALGORITHMS];
  if (algorithms.length === 0) fail('tokens.algorithms must list at least one algorithm');
  const known = new Set<string>(ASYMMETRIC_JWS_ALGORITHMS);
  for (const alg of algorithms) {
    if (alg === 'none' || /^HS/i.test(alg))
      fail(`tokens.algorithms must not allow ${alg} (RFC 8725 Section 3.1)`);
    if (!known.has(alg)) fail(`tokens.algorithms: ${alg} is not an asymmetric JWS algorithm`);
  }
  return [...new Set(algorithms)];
}

function resolveBrowserOrigins(
  resource: string,
  options: ResourceServerOptions['browserOrigins'],
): BrowserOrigins {
  try {
    return new BrowserOrigins(resource, options);
  } catch (error) {
    fail(`browserOrigins.origins: ${(error as Error).message}`);
  }
}

function resolveRevision(id: string | undefined): Revision {
  try {
    return getRevision(id ?? LATEST_REVISION);
  } catch (error) {
    fail(`revision: ${(error as Error).message}`);
  }
}

/**
 * Validates {@link ResourceServerOptions} and applies the defaults.
 *
 * @throws ResourceServerConfigError naming the first unusable option.
 * @see {@link https://www.rfc-editor.org/rfc/rfc9728#section-2 RFC 9728 Section 2}
 */
export function resolveResourceServerConfig(options: ResourceServerOptions): ResourceServerConfig {
  const { resource, metadataUrl, metadataPath } = resolveResource(options.resource);
  const authorizationServers = resolveIssuers(options.authorizationServers);
  const tokens = options.tokens ?? {};
  const mode = tokens.mode ?? 'auto';
  if (!['auto', 'jwt', 'introspection'].includes(mode))
    fail('tokens.mode must be auto, jwt or introspection');

  let introspection: ResolvedTokenOptions['introspection'];
  if (tokens.introspection) {
    const { clientId, clientSecret, endpoint, issuer = authorizationServers[0] ?? '' } = tokens.introspection;
    if (!clientId || !clientSecret) fail('tokens.introspection needs clientId and clientSecret');
    if (!authorizationServers.includes(issuer))
      fail('tokens.introspection.issuer must be one of authorizationServers');
    if (endpoint !== undefined && !EndpointUrlSchema.safeParse(endpoint).success) {
      fail('tokens.introspection.endpoint must be https, or http on a loopback host');
    }
    introspection = Object.freeze({ clientId, clientSecret, issuer, ...(endpoint ? { endpoint } : {}) });
  } else if (mode === 'introspection') {
    fail('tokens.mode introspection needs tokens.introspection (the resource server’s client credentials)');
  }

  const maxTokenLength = tokens.maxTokenLength ?? 8192;
  if (!Number.isInteger(maxTokenLength) || maxTokenLength < 16)
    fail('tokens.maxTokenLength must be at least 16');
  const cacheMaxEntries = tokens.cacheMaxEntries ?? 10_000;
  if (!Number.isInteger(cacheMaxEntries) || cacheMaxEntries < 1)
    fail('tokens.cacheMaxEntries must be at least 1');

  const extensions = options.extensions ?? ExtensionRegistry.compose([]);
  const proofScheme = extensions.resourceServerProofOfPossession()?.scheme;
  if (proofScheme !== undefined && proofScheme.toLowerCase() === 'bearer') {
    fail('extensions: a proof-of-possession scheme cannot be Bearer (RFC 9449 Section 7.1)');
  }

  return Object.freeze({
    resource,
    metadataUrl,
    metadataPath,
    authorizationServers: Object.freeze(authorizationServers),
    scopesSupported: Object.freeze(resolveScopes(options.scopesSupported)),
    scopeHierarchy: resolveHierarchy(options.scopeHierarchy),
    revision: resolveRevision(options.revision),
    ...(options.resourceName ? { resourceName: options.resourceName } : {}),
    extensions,
    browserOrigins: resolveBrowserOrigins(resource, options.browserOrigins),
    tokens: Object.freeze({
      mode,
      algorithms: Object.freeze(resolveAlgorithms(tokens.algorithms)),
      clockSkewSeconds: duration(tokens.clockSkewSeconds, 30, 'tokens.clockSkewSeconds', 300),
      maxTokenLength,
      cacheMaxEntries,
      cacheTtlSeconds: duration(tokens.cacheTtlSeconds, 30, 'tokens.cacheTtlSeconds', 86_400),
      jwks: Object.freeze({
        cooldownMs: duration(tokens.jwks?.cooldownMs, 30_000, 'tokens.jwks.cooldownMs', 300_000),
        cacheMaxAgeMs: duration(tokens.jwks?.cacheMaxAgeMs, 600_000, 'tokens.jwks.cacheMaxAgeMs'),
        staleIfErrorMs: duration(tokens.jwks?.staleIfErrorMs, 3_600_000, 'tokens.jwks.staleIfErrorMs'),
        timeoutMs: duration(tokens.jwks?.timeoutMs, 5_000, 'tokens.jwks.timeoutMs', 60_000),
      }),
      discovery: Object.freeze({
        timeoutMs: duration(tokens.discovery?.timeoutMs, 5_000, 'tokens.discovery.timeoutMs', 60_000),
        maxAgeMs: duration(tokens.discovery?.maxAgeMs, 3_600_000, 'tokens.discovery.maxAgeMs'),
        failureBackoffMs: duration(
          tokens.discovery?.failureBackoffMs,
          5_000,
          'tokens.discovery.failureBackoffMs',
        ),
      }),
      ...(introspection ? { introspection } : {}),
    }),
  });
}
