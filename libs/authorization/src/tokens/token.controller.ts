import { Controller, HttpCode, Inject, Options, Post, Req, Res, UseGuards } from '@nestjs/common';
import type { TokenResponse } from '@portcullis/extensions';
import { OAuthError } from '@portcullis/protocol';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ClientAuthenticator } from '../clients/client-authentication.js';
import {
  AUTHORIZATION_SERVER_OPTIONS,
  type AuthorizationServerOptions,
} from '../config/authorization-server.options.js';
import { TOKEN_GRANTS, type TokenGrant } from '../grants/token-grant.js';
import { allowCors, answerPreflight } from '../http/cors.js';
import { mediaType, RequestParameters } from '../http/request-parameters.js';
import { ResourceRegistry } from '../resources/resource-registry.js';
import { RateLimit, RateLimitGuard } from '../throttling/rate-limit.guard.js';
import { TokenIssuer } from './token-issuer.service.js';

/** Client credentials that must never reach a grant handler (libs/extensions contract). */
const CLIENT_CREDENTIAL_PARAMETERS = ['client_secret', 'client_assertion', 'client_assertion_type'];

/**
 * The token endpoint: form-encoded POST only, one client authentication, dispatch by `grant_type` to a built-in
 * grant or an extension's. Responses and errors carry `Cache-Control: no-store` (RFC 6749 5.1; errors through
 * the exception filter).
 *
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-3.2
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-5
 */
@Controller()
export class TokenController {
  readonly #grants: Map<string, TokenGrant>;

  constructor(
    private readonly clientAuthenticator: ClientAuthenticator,
    private readonly issuer: TokenIssuer,
    private readonly resources: ResourceRegistry,
    @Inject(TOKEN_GRANTS) grants: TokenGrant[],
    @Inject(AUTHORIZATION_SERVER_OPTIONS) private readonly options: AuthorizationServerOptions,
  ) {
    this.#grants = new Map(grants.map((grant) => [grant.grantType, grant]));
  }

  @Options('token')
  preflight(@Res() reply: FastifyReply): void {
    answerPreflight(reply, 'POST');
  }

  @Post('token')
  @HttpCode(200)
  @UseGuards(RateLimitGuard)
  @RateLimit('token')
  async token(
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<TokenResponse> {
    allowCors(reply);
    reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
    // RFC 6749 3.2: the token endpoint takes application/x-www-form-urlencoded; JSON or anything else is refused
    // before its content is looked at.
    if (mediaType(request.headers['content-type']) !== 'application/x-www-form-urlencoded') {
      throw new OAuthError('invalid_request', 'the token request must be application/x-www-form-urlencoded');
    }
    const params = RequestParameters.fromForm((request as FastifyRequest & { rawBody?: Buffer }).rawBody);
    params.assertPlainText();
    params.assertNoRepeats();
    const grantType = params.get('grant_type');
    if (!grantType) throw new OAuthError('invalid_request', 'grant_type is required');

    const authenticated = await this.clientAuthenticator.authenticate(params, request.headers.authorization);
    const builtIn = this.#grants.get(grantType);
    const extension = builtIn ? undefined : this.options.extensions.grantHandler(grantType);
    if (!builtIn && !extension)
      throw new OAuthError('unsupported_grant_type', `unsupported grant_type: ${grantType}`);
    if (!authenticated.client.grantTypes.includes(grantType)) {
      throw new OAuthError('unauthorized_client', `this client may not use grant_type ${grantType}`);
    }
    if (builtIn) return builtIn.handle(params, authenticated);
    if (!extension) throw new OAuthError('unsupported_grant_type', `unsupported grant_type: ${grantType}`);

    const forwarded = params.entries();
    for (const name of [...CLIENT_CREDENTIAL_PARAMETERS, 'grant_type']) delete forwarded[name];
    const { client } = authenticated;
    return extension(
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
          return this.issuer.issue({
            grantType,
            clientId: client.clientId,
            subject: tokens.subject,
            resource: resource.uri,
            scopes,
          });
        },
      },
    );
  }
}
