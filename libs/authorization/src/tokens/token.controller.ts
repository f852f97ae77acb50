import { Controller, HttpCode, Inject, Options, Post, Req, Res } from '@nestjs/common';
import type { TokenResponse } from '@portcullis/extensions';
import { OAuthError } from '@portcullis/protocol';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { TOKEN_ENDPOINT_CHECKS } from '../back-channel/back-channel.checks.js';
import { FormParameters } from '../back-channel/back-channel.js';
import { ClientAuthenticator } from '../clients/client-authentication.js';
import { TOKEN_GRANTS, type TokenGrant } from '../grants/token-grant.js';
import { answerPreflight } from '../http/cors.js';
import type { RequestParameters } from '../http/request-parameters.js';
import { BackChannel, RateLimit } from '../http/route-prologue.js';
import { TokenRequestProofs } from './token-request-proof.service.js';

/**
 * The token endpoint: after {@link TOKEN_ENDPOINT_CHECKS} (CORS, `Cache-Control: no-store` on every answer as
 * RFC 6749 5.1 asks, a form body without unsafe or repeated parameters), one client authentication, then dispatch by
 * `grant_type` to the grant registered under it in {@link TOKEN_GRANTS}, built-in or an extension's.
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-3.2
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-5
 */
@Controller()
export class TokenController {
  readonly #grants = new Map<string, TokenGrant>();

  constructor(
    private readonly clientAuthenticator: ClientAuthenticator,
    private readonly proofs: TokenRequestProofs,
    @Inject(TOKEN_GRANTS) grants: TokenGrant[],
  ) {
    for (const grant of grants) {
      // libs/extensions reserves the built-in names, so no extension can take one; the first registration stands.
      if (!this.#grants.has(grant.grantType)) this.#grants.set(grant.grantType, grant);
    }
  }

  @Options('token')
  preflight(@Res() reply: FastifyReply): void {
    answerPreflight(reply, 'POST');
  }

  /**
   * In order: the client authenticates (RFC 6749 3.2.1), the grant type is one this server handles
   * (`unsupported_grant_type`), and the client is registered for it (`unauthorized_client`, RFC 6749 5.2). A request
   * without client credentials whose grant establishes the client itself (`TokenGrant.clientOptional`, RFC 7521 4.1)
   * skips the first and the last: its handler establishes the client. Then the proof of possession (RFC 9449 5),
   * before the grant consumes anything; the grant binds what it issues to it.
   */
  @Post('token')
  @HttpCode(200)
  @RateLimit('token')
  @BackChannel(TOKEN_ENDPOINT_CHECKS)
  async token(
    @FormParameters() params: RequestParameters,
    @Req() request: FastifyRequest,
  ): Promise<TokenResponse> {
    const grantType = params.get('grant_type');
    if (!grantType) throw new OAuthError('invalid_request', 'grant_type is required');

    const grant = this.#grants.get(grantType);
    // A request with client credentials always authenticates; one without may skip it only where the grant says.
    const clientless =
      !carriesClientCredentials(params, request.headers.authorization) &&
      grant?.clientOptional?.(params) === true;
    const authenticated = clientless
      ? undefined
      : await this.clientAuthenticator.authenticate(params, request.headers.authorization);
    if (!grant) throw new OAuthError('unsupported_grant_type', `unsupported grant_type: ${grantType}`);
    if (authenticated && !authenticated.client.grantTypes.includes(grantType)) {
      throw new OAuthError('unauthorized_client', `this client may not use grant_type ${grantType}`);
    }
    const proof = await this.proofs.verify(request, grantType, authenticated);
    return grant.handle(params, authenticated, proof);
  }
}

/**
 * Whether the request carries client credentials: an `Authorization` header, `client_secret`, or a client assertion
 * (RFC 6749 2.3.1, RFC 7521 4.2). A `client_id` alone is not a credential: a public client names itself with it.
 */
function carriesClientCredentials(params: RequestParameters, authorization: string | undefined): boolean {
  return (
    authorization !== undefined ||
    params.has('client_secret') ||
    params.has('client_assertion') ||
    params.has('client_assertion_type')
  );
}
