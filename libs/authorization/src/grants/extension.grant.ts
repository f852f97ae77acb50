import type { GrantHandler, TokenResponse } from '@portcullis/extensions';
import type { AuthenticatedOAuthClient } from '../clients/client-authentication.js';
import type { UsedJwtIds } from '../clients/client-assertions/used-jwt-id.repository.js';
import type { AuthorizationServerOptions } from '../config/authorization-server.options.js';
import type { RequestParameters } from '../http/request-parameters.js';
import type { ResourceRegistry } from '../resources/resource-registry.js';
import type { TokenIssuer } from '../tokens/token-issuer.service.js';
import type { ExtensionJwts } from './extension-jwts.service.js';
import type { TokenGrant } from './token-grant.js';

/**
 * Parameters that never reach an extension's grant handler: the client credentials (the host has authenticated the
 * client with them, and the `GrantRequest` contract of libs/extensions promises they are removed) and `grant_type`,
 * which the handler receives as `grantType`.
 */
const WITHHELD_PARAMETERS = ['client_secret', 'client_assertion', 'client_assertion_type', 'grant_type'];

/**
 * A grant type an extension handles (RFC 6749 4.5), registered beside the built-in grants. The handler gets the
 * request without the client credentials and mints tokens through the host's issuer, with the host's resource and
 * scope policy (RFC 8707 2, RFC 6749 3.3).
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.5
 */
export class ExtensionGrant implements TokenGrant {
  constructor(
    readonly grantType: string,
    private readonly handler: GrantHandler,
    private readonly options: AuthorizationServerOptions,
    private readonly tokens: TokenIssuer,
    private readonly resources: ResourceRegistry,
    private readonly usedJwtIds: UsedJwtIds,
    private readonly jwts: ExtensionJwts,
  ) {}

  async handle(params: RequestParameters, authenticated: AuthenticatedOAuthClient): Promise<TokenResponse> {
    const forwarded = params.entries();
    for (const name of WITHHELD_PARAMETERS) delete forwarded[name];
    const { grantType } = this;
    const { client } = authenticated;
    return this.handler(
      {
        grantType,
        params: forwarded,
        resources: params.resources,
        client: {
          clientId: client.clientId,
          metadata: client.metadata,
          authenticationMethod: authenticated.method,
        },
      },
      {
        issuer: this.options.issuer,
        revision: this.options.revision,
        issueTokens: async (tokens) => {
          const resource = this.resources.resolve(tokens.resources);
          const scopes = this.resources.requestedScopes(resource, [...tokens.scope]);
          return this.tokens.issue({
            grantType,
            clientId: client.clientId,
            subject: tokens.subject,
            resource: resource.uri,
            scopes,
          });
        },
        useOnce: (issuer, jti, expiresAt) => this.usedJwtIds.use(issuer, jti, expiresAt),
        signJwt: (request) => this.jwts.sign(request),
        verifyIdToken: (token) => this.jwts.verifyIdToken(token),
      },
    );
  }
}

/** A {@link TokenGrant} for every grant type of `options.extensions`, in the registry's order. */
export function extensionGrants(
  options: AuthorizationServerOptions,
  tokens: TokenIssuer,
  resources: ResourceRegistry,
  usedJwtIds: UsedJwtIds,
  jwts: ExtensionJwts,
): ExtensionGrant[] {
  return options.extensions.grantTypes().flatMap((grantType) => {
    const handler = options.extensions.grantHandler(grantType);
    return handler
      ? [new ExtensionGrant(grantType, handler, options, tokens, resources, usedJwtIds, jwts)]
      : [];
  });
}
