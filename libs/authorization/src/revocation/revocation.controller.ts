import { Controller, HttpCode, Options, Post, Req, Res } from '@nestjs/common';
import { OAuthError } from '@portcullis/protocol';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { REVOCATION_ENDPOINT_CHECKS } from '../back-channel/back-channel.checks.js';
import { FormParameters } from '../back-channel/back-channel.js';
import { ClientAuthenticator } from '../clients/client-authentication.js';
import { answerPreflight } from '../http/cors.js';
import type { RequestParameters } from '../http/request-parameters.js';
import { BackChannel, RateLimit } from '../http/route-prologue.js';
import { RevocationService } from './revocation.service.js';

/**
 * The revocation endpoint (RFC 7009): after {@link REVOCATION_ENDPOINT_CHECKS} (CORS for browser-based clients,
 * never cached, a form body without unsafe or repeated parameters, as at the token endpoint), a POST of `token` and
 * an optional `token_type_hint` (a hint only; an unknown value is ignored, so `unsupported_token_type` is never
 * needed). The client authenticates as at the token endpoint, a public client by its `client_id` alone (RFC 7009 2.1
 * and 5). The answer is an empty 200 whether or not anything was revoked (RFC 7009 2.2). Rate-limited with the token
 * endpoint's limit.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7009#section-2
 */
@Controller()
export class RevocationController {
  constructor(
    private readonly clientAuthenticator: ClientAuthenticator,
    private readonly revocation: RevocationService,
  ) {}

  @Options('revoke')
  preflight(@Res() reply: FastifyReply): void {
    answerPreflight(reply, 'POST');
  }

  @Post('revoke')
  @HttpCode(200)
  @RateLimit('token')
  @BackChannel(REVOCATION_ENDPOINT_CHECKS)
  async revoke(
    @FormParameters() params: RequestParameters,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const { client } = await this.clientAuthenticator.authenticate(params, request.headers.authorization);
    const token = params.get('token');
    if (!token) throw new OAuthError('invalid_request', 'token is required');
    await this.revocation.revoke(token, params.get('token_type_hint'), client);
    reply.status(200).send();
  }
}
