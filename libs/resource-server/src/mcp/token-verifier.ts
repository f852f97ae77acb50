/**
 * This resource's token validation behind the official MCP TypeScript SDK's `OAuthTokenVerifier`, so the SDK's own
 * `requireBearerAuth({ verifier, requiredScopes, resourceMetadataUrl })` enforces it.
 *
 * Rules kept here:
 * - Every token goes through the one {@link TokenVerifier}: shape, verdict cache, then JWT validation (issuer,
 *   audience, lifetime, signature with the issuer's rotating key set) or RFC 7662 introspection.
 * - RFC 6750 Section 3.1: a token this resource must not accept is the SDK's `OAuthError` `invalid_token`, which
 *   the SDK answers 401 with its challenge.
 * - RFC 9449 Section 7.2: the SDK reads only `Authorization: Bearer`; with a proof-of-possession extension composed,
 *   a token bound to a key, or any token when the extension requires bound tokens, is `invalid_token` (a bound
 *   token is used with its proof through `protect`).
 * - An authorization server that cannot be reached is no verdict on the token: the SDK has no 503, so it is its
 *   `server_error` (500), never `invalid_token`, which would send the client through authorization again for
 *   nothing.
 */
import {
  OAuthError as McpOAuthError,
  type AuthInfo as McpAuthInfo,
  type OAuthTokenVerifier,
} from '@modelcontextprotocol/server';
import { OAuthError } from '@portcullis/protocol';
import { checkBearerPresentation } from '../auth/checks/token-binding.check.js';
import { resolveResourceServerConfig, type ResourceServerConfig } from '../config/resource-server.config.js';
import type { ResourceServerOptions } from '../config/resource-server.options.js';
import { TokenVerifier } from '../tokens/token-verifier.service.js';
import { toMcpAuthInfo } from './mcp-auth-info.js';

/**
 * An `OAuthTokenVerifier` of the MCP SDK for one resource, with what `requireBearerAuth` needs besides it.
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc6750#section-3.1 RFC 6750 Section 3.1}
 */
export interface ResourceTokenVerifier extends OAuthTokenVerifier {
  /** The path-inserted metadata URL: `requireBearerAuth`'s `resourceMetadataUrl`. */
  readonly resourceMetadataUrl: string;
  /** The canonical resource URI: `requireBearerAuth`'s `expectedResource`, if you pass one. */
  readonly resource: URL;
  verifyAccessToken(token: string): Promise<McpAuthInfo>;
}

function toMcpError(error: unknown): unknown {
  if (!(error instanceof OAuthError)) return error;
  if (error.code === 'temporarily_unavailable') {
    return new McpOAuthError(
      'server_error',
      error.description ?? 'The access token cannot be validated now.',
    );
  }
  return new McpOAuthError(error.code, error.description ?? error.code);
}

/**
 * The SDK verifier over a resource's {@link TokenVerifier} (shared, with its cache, by `createResourceServer`).
 *
 * @see {@link https://www.rfc-editor.org/rfc/rfc9068#section-4 RFC 9068 Section 4}
 */
export function mcpTokenVerifier(
  config: ResourceServerConfig,
  verifier: TokenVerifier,
): ResourceTokenVerifier {
  const proof = config.extensions.resourceServerProofOfPossession();
  return {
    resourceMetadataUrl: config.metadataUrl,
    resource: new URL(config.resource),
    async verifyAccessToken(token: string): Promise<McpAuthInfo> {
      try {
        const auth = await verifier.verify(token);
        if (proof) checkBearerPresentation(proof, auth);
        return toMcpAuthInfo(auth, config);
      } catch (error) {
        throw toMcpError(error);
      }
    },
  };
}

/**
 * A token verifier for the MCP SDK's bearer-auth helpers that validates tokens as this resource's options say:
 * issuer, audience (the resource), JWT or introspection, the verdict cache (`tokens.cacheTtlSeconds`). Scopes are
 * the SDK's to check (`requiredScopes`); the configured hierarchy is applied to the scopes it compares.
 *
 * @example
 * ```ts
 * const verifier = createTokenVerifier({ resource: 'https://mcp.example.com/mcp', authorizationServers: [issuer] });
 * const gate = requireBearerAuth({ verifier, requiredScopes: ['notes:read'], resourceMetadataUrl: verifier.resourceMetadataUrl });
 * ```
 *
 * @throws ResourceServerConfigError when the options are unusable.
 * @see {@link https://www.rfc-editor.org/rfc/rfc6750#section-3.1 RFC 6750 Section 3.1}
 * @see {@link https://www.rfc-editor.org/rfc/rfc8707#section-2 RFC 8707 Section 2}
 */
export function createTokenVerifier(options: ResourceServerOptions): ResourceTokenVerifier {
  const config = resolveResourceServerConfig(options);
  return mcpTokenVerifier(config, new TokenVerifier(config));
}
