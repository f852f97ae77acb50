import type {
  AuthenticatedClient,
  GrantContext,
  IssueTokensRequest,
  RegisteredGrant,
  SignJwtRequest,
  TokenRequestProof,
  TokenResponse,
} from '@portcullis/extensions';
import { OAuthError } from '@portcullis/protocol';
import type { AuthenticatedOAuthClient } from '../clients/client-authentication.js';
import type { ClientSource } from '../clients/client.js';
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
 * A grant type extensions handle (RFC 6749 4.5), registered beside the built-in grants. The request goes to the
 * registration that takes it (`ExtensionRegistry.selectGrant`: the only one, or the first of a shared grant type's
 * that accepts it; none is `invalid_grant`). The handler gets the request without the client credentials and mints
 * tokens through the host's issuer, with the host's resource and scope policy (RFC 8707 2, RFC 6749 3.3). Only a
 * handler that establishes its client (`establishesClient`) runs without an authenticated client and names the
 * token's client itself.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.5
 */
export class ExtensionGrant implements TokenGrant {
  constructor(
    readonly grantType: string,
    private readonly options: AuthorizationServerOptions,
    private readonly tokens: TokenIssuer,
    private readonly resources: ResourceRegistry,
    private readonly usedJwtIds: UsedJwtIds,
    private readonly jwts: ExtensionJwts,
    private readonly clients: ClientSource,
  ) {}

  clientOptional(params: RequestParameters): boolean {
    const registration = this.#select(params);
    return registration === undefined || registration.establishesClient;
  }

  async handle(
    params: RequestParameters,
    authenticated: AuthenticatedOAuthClient | undefined,
    proof: TokenRequestProof | undefined,
  ): Promise<TokenResponse> {
    const { grantType } = this;
    const registration = this.#select(params);
    if (registration === undefined) {
      throw new OAuthError('invalid_grant', `no handler of ${grantType} on this server takes this grant`);
    }
    const client: AuthenticatedClient | undefined = authenticated && {
      clientId: authenticated.client.clientId,
      metadata: authenticated.client.metadata,
      authenticationMethod: authenticated.method,
    };
    const request = { grantType, params: withheld(params), resources: params.resources };
    const context = {
      issuer: this.options.issuer,
      revision: this.options.revision,
      tokenEndpoint: `${this.options.issuer.replace(/\/$/, '')}/token`,
      issueTokens: async (tokens: IssueTokensRequest) => {
        // A defect of the extension, never the client's doing: a server_error, and nothing is minted.
        if (tokens.clientId !== undefined) {
          if (!registration.establishesClient) {
            throw new Error(
              `the ${grantType} handler of ${registration.extensionId} may not name a clientId`,
            );
          }
          if (client !== undefined && tokens.clientId !== client.clientId) {
            throw new Error(`the ${grantType} handler named another client than the authenticated one`);
          }
        }
        const clientId = tokens.clientId ?? client?.clientId;
        if (!clientId) throw new Error(`the ${grantType} handler issued tokens without a client`);
        const resource = this.resources.resolve(tokens.resources);
        const scopes = this.resources.requestedScopes(resource, [...tokens.scope]);
        // A client the grant established may be known to the grant alone (an operator's rule): no metadata then.
        const metadata = client?.metadata ?? (await this.clients.find(clientId))?.metadata ?? {};
        return this.tokens.issue({
          grantType,
          client: { clientId, metadata },
          subject: tokens.subject,
          resource: resource.uri,
          scopes,
          // RFC 9449 5: every grant type's access token is bound to the request's proof.
          ...(proof ? { proof } : {}),
        });
      },
      useOnce: (issuer: string, jti: string, expiresAt: Date) => this.usedJwtIds.use(issuer, jti, expiresAt),
      signJwt: (signing: SignJwtRequest) => this.jwts.sign(signing),
      verifyIdToken: (token: string) => this.jwts.verifyIdToken(token),
      fetchJwks: (jwksUri: string, kid?: string) => this.jwts.fetchJwks(jwksUri, kid),
    } satisfies GrantContext;
    if (registration.establishesClient) return registration.handle({ ...request, client }, context);
    if (client === undefined) throw new Error(`${grantType} reached its handler without a client`);
    return registration.handle({ ...request, client }, context);
  }

  #select(params: RequestParameters): RegisteredGrant | undefined {
    const { grantType } = this;
    return this.options.extensions.selectGrant({
      grantType,
      params: withheld(params),
      resources: params.resources,
    });
  }
}

/** The parameters a handler sees: all but {@link WITHHELD_PARAMETERS}. */
function withheld(params: RequestParameters): Record<string, string> {
  const forwarded = params.entries();
  for (const name of WITHHELD_PARAMETERS) delete forwarded[name];
  return forwarded;
}

/** A {@link TokenGrant} for every grant type of `options.extensions`, in the registry's order. */
export function extensionGrants(
  options: AuthorizationServerOptions,
  tokens: TokenIssuer,
  resources: ResourceRegistry,
  usedJwtIds: UsedJwtIds,
  jwts: ExtensionJwts,
  clients: ClientSource,
): ExtensionGrant[] {
  return options.extensions
    .grantTypes()
    .map((grantType) => new ExtensionGrant(grantType, options, tokens, resources, usedJwtIds, jwts, clients));
}
