import { Controller, Get, NotFoundException, Req, Res } from '@nestjs/common';
import { Inject } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  AUTHORIZATION_SERVER_OPTIONS,
  type AuthorizationServerOptions,
} from '../config/authorization-server.options.js';
import { allowCors } from '../http/cors.js';
import { SigningKeysService } from '../keys/signing-keys.service.js';
import { MetadataService } from './metadata.service.js';

/**
 * Serves the metadata at every URL a client may build from the issuer: RFC 8414's path-inserted
 * `/.well-known/oauth-authorization-server{path}`, OIDC's path-inserted form, and OIDC Discovery's
 * path-appended `{path}/.well-known/openid-configuration`; and the JWK Set. All public, with CORS.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8414#section-3.1
 * @see https://openid.net/specs/openid-connect-discovery-1_0.html#ProviderConfigurationRequest
 */
@Controller()
export class DiscoveryController {
  readonly #issuerPath: string;

  constructor(
    private readonly metadata: MetadataService,
    @Inject(AUTHORIZATION_SERVER_OPTIONS) options: AuthorizationServerOptions,
  ) {
    this.#issuerPath = new URL(options.issuer).pathname.replace(/\/$/, '');
  }

  @Get(['.well-known/oauth-authorization-server', '.well-known/oauth-authorization-server/*'])
  oauth(@Req() request: FastifyRequest, @Res() reply: FastifyReply): void {
    this.#serve(request, reply, '/.well-known/oauth-authorization-server');
  }

  @Get(['.well-known/openid-configuration', '.well-known/openid-configuration/*'])
  openid(@Req() request: FastifyRequest, @Res() reply: FastifyReply): void {
    this.#serve(request, reply, '/.well-known/openid-configuration');
  }

  #serve(request: FastifyRequest, reply: FastifyReply, wellKnown: string): void {
    // Only the issuer's own path answers: another tenant's path is not this server.
    if (pathOf(request.url) !== `${wellKnown}${this.#issuerPath}`) throw new NotFoundException();
    this.#send(reply);
  }

  #send(reply: FastifyReply): void {
    sendMetadata(reply, this.metadata);
  }
}

/**
 * OIDC Discovery's path-appended form, `{issuer}/.well-known/openid-configuration`, registered under the issuer's
 * path only when the issuer has one (without a path it is the root URL the controller above serves).
 */
@Controller()
export class PathAppendedDiscoveryController {
  constructor(private readonly metadata: MetadataService) {}

  @Get('.well-known/openid-configuration')
  openid(@Res() reply: FastifyReply): void {
    sendMetadata(reply, this.metadata);
  }
}

/** The JWK Set at `jwks_uri`: public keys only, cacheable, CORS allowed (RFC 7517 5, RFC 8414 2). */
@Controller()
export class JwksController {
  constructor(private readonly keys: SigningKeysService) {}

  @Get('jwks')
  jwks(@Res() reply: FastifyReply): void {
    allowCors(reply);
    reply
      .header('cache-control', `public, max-age=${this.keys.jwksMaxAge()}`)
      .header('content-type', 'application/jwk-set+json')
      .send(this.keys.jwks());
  }
}

// An hour, as the large providers publish theirs: the document changes only with a deployment, and a client that keeps
// it (RFC 9111) makes no discovery request for that long; the keys (jwks_uri) stay at JWKS_MAX_AGE (five minutes),
// which a rotated key waits out before it signs (keys/signing-key-timing.ts).
function sendMetadata(reply: FastifyReply, metadata: MetadataService): void {
  allowCors(reply);
  reply
    .header('cache-control', 'public, max-age=3600')
    .header('content-type', 'application/json')
    .send(metadata.document());
}

function pathOf(url: string): string {
  const question = url.indexOf('?');
  return question === -1 ? url : url.slice(0, question);
}
