import { Controller, HttpCode, Post, Req } from '@nestjs/common';
import { OAuthError } from '@portcullis/protocol';
import type { FastifyRequest } from 'fastify';
import { INTROSPECTION_ENDPOINT_CHECKS } from '../back-channel/back-channel.checks.js';
import { FormParameters } from '../back-channel/back-channel.js';
import { BackChannel } from '../http/route-prologue.js';
import { ClientAuthenticator, InvalidClientError } from '../clients/client-authentication.js';
import type { RequestParameters } from '../http/request-parameters.js';
import { IntrospectionService, type IntrospectionResponse } from './introspection.service.js';

/**
 * The introspection endpoint (RFC 7662): after {@link INTROSPECTION_ENDPOINT_CHECKS} (never cached, a form body
 * without unsafe or repeated parameters; not open to browsers, so no CORS), a POST of `token` and an optional
 * `token_type_hint` by an authenticated confidential client (a resource server is one). Client authentication comes
 * first, exactly as at the token endpoint; a public client (`none`) is `invalid_client`, since anyone could call
 * with its ID (RFC 7662 2.1: the endpoint MUST require authorization).
 *
 * @see https://www.rfc-editor.org/rfc/rfc7662#section-2.1
 * @see https://www.rfc-editor.org/rfc/rfc7662#section-2.3
 */
@Controller()
export class IntrospectionController {
  constructor(
    private readonly clientAuthenticator: ClientAuthenticator,
    private readonly introspection: IntrospectionService,
  ) {}

  @Post('introspect')
  @HttpCode(200)
  @BackChannel(INTROSPECTION_ENDPOINT_CHECKS)
  async introspect(
    @FormParameters() params: RequestParameters,
    @Req() request: FastifyRequest,
  ): Promise<IntrospectionResponse> {
    const { client, method } = await this.clientAuthenticator.authenticate(
      params,
      request.headers.authorization,
    );
    if (method === 'none') throw new InvalidClientError('introspection requires an authenticated client');
    const token = params.get('token');
    if (!token) throw new OAuthError('invalid_request', 'token is required');
    return this.introspection.introspect(token, params.get('token_type_hint'), client);
  }
}
