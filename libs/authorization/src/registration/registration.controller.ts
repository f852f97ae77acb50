import { Controller, Delete, Get, HttpCode, Options, Param, Post, Put, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  CLIENT_CONFIGURATION_CHECKS,
  CLIENT_CONFIGURATION_UPDATE_CHECKS,
  REGISTRATION_ENDPOINT_CHECKS,
} from '../back-channel/back-channel.checks.js';
import { answerPreflight } from '../http/cors.js';
import { BackChannel, RateLimit } from '../http/route-prologue.js';
import { RegistrationService, type RegistrationResponse } from './registration.service.js';

export { MAX_REGISTRATION_BODY } from '../back-channel/checks/registration-body-size.check.js';

/**
 * The client registration endpoint (RFC 7591 3), mounted only when registration is enabled. In order: the rate
 * limit, then {@link REGISTRATION_ENDPOINT_CHECKS} (CORS, `Cache-Control: no-store` on every answer since it may hold
 * a secret, the RFC 9745 `Deprecation` header where the revision deprecates dynamic registration, the initial access
 * token when one is configured, `application/json` only, at most `MAX_REGISTRATION_BODY` bytes), then the metadata
 * checks of {@link RegistrationService}. 201 with the Client Information Response. The client configuration endpoint
 * (RFC 7592) has the same prologue without the initial access token.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7591#section-3.1
 * @see https://www.rfc-editor.org/rfc/rfc7591#section-3.2
 * @see https://www.rfc-editor.org/rfc/rfc9745
 */
@Controller()
export class RegistrationController {
  constructor(private readonly registration: RegistrationService) {}

  @Options('register')
  preflight(@Res() reply: FastifyReply): void {
    answerPreflight(reply, 'POST');
  }

  @Post('register')
  @HttpCode(201)
  @RateLimit('register')
  @BackChannel(REGISTRATION_ENDPOINT_CHECKS)
  async register(@Req() request: FastifyRequest): Promise<RegistrationResponse> {
    return this.registration.register(request.body);
  }

  @Options('register/:clientId')
  managementPreflight(@Res() reply: FastifyReply): void {
    answerPreflight(reply, 'GET, PUT, DELETE');
  }

  /** RFC 7592 2.1: the registration as it stands, for the holder of its registration access token. */
  @Get('register/:clientId')
  @RateLimit('register')
  @BackChannel(CLIENT_CONFIGURATION_CHECKS)
  async read(
    @Param('clientId') clientId: string,
    @Req() request: FastifyRequest,
  ): Promise<RegistrationResponse> {
    return this.registration.read(clientId, request.headers.authorization);
  }

  /** RFC 7592 2.2: replaces the client's metadata, checked as a registration is. */
  @Put('register/:clientId')
  @RateLimit('register')
  @BackChannel(CLIENT_CONFIGURATION_UPDATE_CHECKS)
  async update(
    @Param('clientId') clientId: string,
    @Req() request: FastifyRequest,
  ): Promise<RegistrationResponse> {
    return this.registration.update(clientId, request.headers.authorization, request.body);
  }

  /** RFC 7592 2.3: deletes the client, revoking its grants; 204. */
  @Delete('register/:clientId')
  @HttpCode(204)
  @RateLimit('register')
  @BackChannel(CLIENT_CONFIGURATION_CHECKS)
  async remove(@Param('clientId') clientId: string, @Req() request: FastifyRequest): Promise<void> {
    await this.registration.delete(clientId, request.headers.authorization);
  }
}
