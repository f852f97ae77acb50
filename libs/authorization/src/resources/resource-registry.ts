import { canonicalizeResourceUri, OAuthError, type ScopeHierarchy } from '@portcullis/protocol';
import type { ResourceDefinition } from '../config/authorization-server.options.js';

/**
 * The OpenID Connect scopes that ask for claims about the person (OIDC Core 5.4), granted as claims of the ID token,
 * never as scopes of an access token for a resource; no resource may define a scope of the same name.
 *
 * @see https://openid.net/specs/openid-connect-core-1_0.html#ScopeClaims
 */
export const CLAIM_SCOPES: readonly string[] = ['profile', 'email'];

/**
 * Scopes the authorization server itself understands, beside each resource's own: `openid` and `offline_access`
 * (OIDC Core 3.1.2.1, 11) and the claim scopes (5.4).
 */
export const SERVER_SCOPES: readonly string[] = ['openid', 'offline_access', ...CLAIM_SCOPES];

/** A registered resource, with its canonical URI and every scope a request may name for it. */
export interface RegisteredResource {
  readonly uri: string;
  readonly name: string;
  readonly scopesSupported: readonly string[];
  readonly scopeHierarchy: ScopeHierarchy;
  /** `scopesSupported` plus every broader scope of the hierarchy (`notes`). */
  readonly requestableScopes: ReadonlySet<string>;
}

/**
 * The resources this authorization server issues tokens for, and the RFC 8707 rules for choosing one.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8707#section-2
 */
export class ResourceRegistry {
  readonly #byUri = new Map<string, RegisteredResource>();

  constructor(definitions: readonly ResourceDefinition[]) {
    for (const definition of definitions) {
      const uri = canonicalizeResourceUri(definition.uri);
      if (uri !== definition.uri) {
        throw new Error(`resource ${definition.uri} is not in canonical form (expected ${uri})`);
      }
      if (this.#byUri.has(uri)) throw new Error(`resource ${uri} is registered twice`);
      const hierarchy = definition.scopeHierarchy ?? {};
      const named = [
        ...definition.scopesSupported,
        ...Object.keys(hierarchy),
        ...Object.values(hierarchy).flat(),
      ];
      const clash = named.find((scope) => CLAIM_SCOPES.includes(scope));
      if (clash !== undefined) {
        throw new Error(
          `resource ${uri} defines the scope ${clash}, which is this server's OpenID Connect scope (OIDC Core 5.4)`,
        );
      }
      this.#byUri.set(uri, {
        uri,
        name: definition.name ?? uri,
        scopesSupported: [...definition.scopesSupported],
        scopeHierarchy: hierarchy,
        requestableScopes: new Set([...definition.scopesSupported, ...Object.keys(hierarchy)]),
      });
    }
  }

  list(): readonly RegisteredResource[] {
    return [...this.#byUri.values()];
  }

  /** The registered resource of a canonical URI, if there is one. */
  find(uri: string): RegisteredResource | undefined {
    return this.#byUri.get(uri);
  }

  /**
   * The resource a request is for. RFC 8707 allows several `resource` parameters; Portcullis issues tokens for one
   * audience at a time, so more than one is `invalid_target`. Without one, the single registered resource is
   * meant; with several registered, the client must say which.
   *
   * @throws OAuthError `invalid_target`
   * @see https://www.rfc-editor.org/rfc/rfc8707#section-2
   */
  resolve(requested: readonly string[]): RegisteredResource {
    const [raw, ...more] = requested;
    if (more.length > 0) {
      throw new OAuthError('invalid_target', 'only one resource may be requested at a time');
    }
    if (raw === undefined) {
      const [only, ...others] = this.list();
      if (only && others.length === 0) return only;
      throw new OAuthError('invalid_target', 'resource is required: this server issues tokens for several');
    }
    // RFC 8707 section 2: "MUST NOT include a fragment component"; canonicalisation refuses it with invalid_target.
    const uri = canonicalizeResourceUri(raw);
    const resource = this.#byUri.get(uri);
    if (!resource) throw new OAuthError('invalid_target', 'unknown resource');
    return resource;
  }

  /**
   * The scopes a request asks of `resource`, checked: every value is one the resource or the server defines.
   * Without `scope`, the resource's `scopes_supported`.
   *
   * @throws OAuthError `invalid_scope`
   * @see https://www.rfc-editor.org/rfc/rfc6749#section-3.3
   */
  requestedScopes(resource: RegisteredResource, requested: readonly string[] | undefined): string[] {
    if (requested === undefined || requested.length === 0) return [...resource.scopesSupported];
    const unknown = requested.filter(
      (scope) => !resource.requestableScopes.has(scope) && !SERVER_SCOPES.includes(scope),
    );
    if (unknown.length > 0) {
      throw new OAuthError('invalid_scope', `scope not offered for this resource: ${unknown.join(' ')}`);
    }
    return [...new Set(requested)];
  }

  /**
   * The granted scopes an access token for a resource carries: all but the {@link CLAIM_SCOPES} (those are claims
   * about the person, in the ID token, not permissions at the resource).
   *
   * @see https://openid.net/specs/openid-connect-core-1_0.html#ScopeClaims
   */
  accessTokenScopes(granted: readonly string[]): string[] {
    return granted.filter((scope) => !CLAIM_SCOPES.includes(scope));
  }
}
