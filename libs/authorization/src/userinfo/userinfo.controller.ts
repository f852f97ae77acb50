import { Controller, Get, Inject, Options, Post, Req, Res } from '@nestjs/common';
import { formatWwwAuthenticate, OAuthError, parseScope } from '@portcullis/protocol';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import {
  AUTHORIZATION_SERVER_OPTIONS,
  type AuthorizationServerOptions,
} from '../config/authorization-server.options.js';
import { allowCors, answerPreflight } from '../http/cors.js';
import { SigningKeysService } from '../keys/signing-keys.service.js';
import { GrantRepository } from '../tokens/grant.repository.js';
import { UserRepository } from '../users/user.repository.js';

/**
 * The OIDC UserInfo endpoint. It takes an access token this server issued with the `openid` scope, in the
 * Authorization header only (RFC 6750 2.1). A sender-constrained token (one with `cnf`, RFC 9449 6.1) is refused:
 * presented as a bearer token it proves nothing (RFC 9449 7.2), and this endpoint checks no proof of possession.
 *
 * It answers `sub` and `preferred_username` (the username, the one name every user has), and never the claims of
 * `profile` and `email` (`name`, `email`, `email_verified`), which the client gets in the ID token. Every access token
 * this server issues is for a resource (its `aud`, RFC 8707 2, RFC 9068 3; MCP "Token Audience Binding and
 * Validation"): that resource holds it too, and could present it here to read what the person agreed to show the
 * client, not the resource. OIDC Core 5.4 returns those claims from UserInfo when an access token is issued;
 * audience restriction wins here, since no access token is issued for this server itself.
 *
 * @see https://openid.net/specs/openid-connect-core-1_0.html#UserInfo
 * @see https://openid.net/specs/openid-connect-core-1_0.html#ScopeClaims
 * @see https://www.rfc-editor.org/rfc/rfc9068#section-3
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#token-audience-binding-and-validation
 * @see https://www.rfc-editor.org/rfc/rfc6750#section-3
 */
@Controller()
export class UserinfoController {
  constructor(
    private readonly keys: SigningKeysService,
    private readonly grants: GrantRepository,
    private readonly users: UserRepository,
    @Inject(AUTHORIZATION_SERVER_OPTIONS) private readonly options: AuthorizationServerOptions,
  ) {}

  @Options('userinfo')
  preflight(@Res() reply: FastifyReply): void {
    answerPreflight(reply, 'GET, POST');
  }

  @Get('userinfo')
  get(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    return this.#answer(request, reply);
  }

  @Post('userinfo')
  post(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    return this.#answer(request, reply);
  }

  async #answer(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    allowCors(reply);
    reply.header('cache-control', 'no-store');
    try {
      const subject = await this.#subject(request.headers.authorization);
      const user = await this.users.findById(subject);
      if (!user) throw new OAuthError('invalid_token', 'the user no longer exists');
      reply.status(200).send({ sub: user.id, preferred_username: user.username });
    } catch (error) {
      const oauth =
        error instanceof OAuthError ? error : new OAuthError('invalid_token', 'the access token is invalid');
      reply
        .status(oauth.status)
        .header(
          'www-authenticate',
          formatWwwAuthenticate({
            scheme: 'Bearer',
            params: {
              error: oauth.code,
              ...(oauth.description ? { error_description: oauth.description } : {}),
            },
          }),
        )
        .send(oauth.toResponseBody());
    }
  }

  /** The subject of a valid, unrevoked access token granted `openid`. */
  async #subject(authorization: string | undefined): Promise<string> {
    const token = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(authorization ?? '')?.[1];
    if (!token) throw new OAuthError('invalid_token', 'a bearer access token is required');
    // A kid this instance does not know may be a key another instance rotated to: re-read the keys first.
    let kid: string | undefined;
    try {
      kid = decodeProtectedHeader(token).kid;
    } catch {
      throw new OAuthError('invalid_token', 'the access token is malformed');
    }
    const { payload } = await jwtVerify(token, createLocalJWKSet(await this.keys.verificationKeys(kid)), {
      issuer: this.options.issuer,
      typ: 'at+jwt',
      algorithms: ['ES256'],
      requiredClaims: ['sub', 'jti', 'exp'],
    });
    if (payload.cnf !== undefined) {
      throw new OAuthError(
        'invalid_token',
        'the access token is bound to a key; this endpoint takes bearer tokens only',
      );
    }
    if (!parseScope(String(payload.scope ?? '')).includes('openid')) {
      throw new OAuthError('insufficient_scope', 'the access token was not granted the openid scope');
    }
    const { jti, sub } = payload;
    const record = jti ? await this.grants.findAccessToken(jti) : null;
    if (!sub || !record || record.revokedAt !== null) {
      throw new OAuthError('invalid_token', 'the access token was revoked');
    }
    return sub;
  }
}
