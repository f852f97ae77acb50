import { Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import { OAuthError } from '@portcullis/protocol';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ClientAuthenticator, InvalidClientError } from '../clients/client-authentication.js';
import { mediaType, RequestParameters } from '../http/request-parameters.js';
import { IntrospectionService, type IntrospectionResponse } from './introspection.service.js';

/**
 * The introspection endpoint (RFC 7662): form-encoded POST of `token` and an optional `token_type_hint`, by an
 * authenticated confidential client (a resource server is one). Client authentication comes first, exactly as at
 * the token endpoint; a public client (`none`) is `invalid_client`, since anyone could call with its ID
 * (RFC 7662 2.1: the endpoint MUST require authorization). The answer is never cached (`Cache-Control: no-store`).
 * Not open to browsers: no CORS.
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
  async introspect(
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<IntrospectionResponse> {
    reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
    if (mediaType(request.headers['content-type']) !== 'application/x-www-form-urlencoded') {
      throw new OAuthError(
        'invalid_request',
        'the introspection request must be application/x-www-form-urlencoded',
      );
    }
    const params = RequestParameters.fromForm((request as FastifyRequest & { rawBody?: Buffer }).rawBody);
    params.assertPlainText();
    params.assertNoRepeats();
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
