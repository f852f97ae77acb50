// Rules kept: RFC 9449 section 5 (a token request's DPoP proof is checked for every grant type, against the token
// endpoint URL as published, after client authentication and before the grant consumes a code or a refresh token);
// RFC 9449 section 5.2 (a client registered with `dpop_bound_access_tokens: true`, or every client when the operator
// requires it, is refused without a proof: `invalid_dpop_proof`); RFC 9449 section 11.1 (a proof's `jti` is used
// once, in the store every instance shares). Without a proof-of-possession extension a `DPoP` header is ignored and
// tokens are Bearer tokens (RFC 9449 section 5).
import { Inject, Injectable } from '@nestjs/common';
import type { AuthenticatedClient, TokenRequestProof } from '@portcullis/extensions';
import { OAuthError } from '@portcullis/protocol';
import type { FastifyRequest } from 'fastify';
import type { AuthenticatedOAuthClient } from '../clients/client-authentication.js';
import { UsedJwtIds } from '../clients/client-assertions/used-jwt-id.repository.js';
import {
  AUTHORIZATION_SERVER_OPTIONS,
  type AuthorizationServerOptions,
} from '../config/authorization-server.options.js';
import { MetadataService } from '../discovery/metadata.service.js';
import { httpRequestView } from '../http/http-request-view.js';

/**
 * Where a proof's `jti` is recorded in the used-JWT-ID store: apart from the issuers of client assertions (client
 * IDs), so that the two kinds never meet.
 */
const PROOF_NAMESPACE_PREFIX = 'proof-of-possession:';

/**
 * The token endpoint's proof of possession (DPoP): the composed extension verifies the request's proof; the grants
 * bind what they issue to it.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9449#section-5
 */
@Injectable()
export class TokenRequestProofs {
  constructor(
    private readonly usedJwtIds: UsedJwtIds,
    private readonly metadata: MetadataService,
    @Inject(AUTHORIZATION_SERVER_OPTIONS) private readonly options: AuthorizationServerOptions,
  ) {}

  /**
   * The request's verified proof, or `undefined` when it carries none and none is required (or no extension
   * provides proof of possession).
   *
   * @throws OAuthError `invalid_dpop_proof` for a bad or missing-but-required proof, `use_dpop_nonce` (with the
   *   `DPoP-Nonce` header) when the server wants its nonce in the proof.
   */
  async verify(
    request: FastifyRequest,
    grantType: string,
    authenticated: AuthenticatedOAuthClient | undefined,
  ): Promise<TokenRequestProof | undefined> {
    const { extensions, issuer, revision } = this.options;
    const possession = extensions.authorizationServerProofOfPossession();
    if (possession === undefined) return undefined;
    const tokenEndpoint = this.metadata.endpoint('token');
    const client: AuthenticatedClient | undefined = authenticated && {
      clientId: authenticated.client.clientId,
      metadata: authenticated.client.metadata,
      authenticationMethod: authenticated.method,
    };
    const proof = await possession.verifyTokenRequest(httpRequestView(request, tokenEndpoint), {
      issuer,
      revision,
      tokenEndpoint,
      grantType,
      ...(client ? { client } : {}),
      useOnce: (namespace, jti, expiresAt) =>
        this.usedJwtIds.use(`${PROOF_NAMESPACE_PREFIX}${namespace}`, jti, expiresAt),
    });
    if (proof === undefined && possession.requiredFor(client)) {
      throw new OAuthError('invalid_dpop_proof', `a ${possession.scheme} proof is required`);
    }
    return proof;
  }
}
