import type { IncomingMessage } from 'node:http';
import { Controller, Delete, Get, Inject, Post, Req, Res } from '@nestjs/common';
import type { AuthInfo as McpAuthInfo } from '@modelcontextprotocol/server';
import { type AuthInfo, type ResourceServerConfig } from '@portcullis/resource-server';
import { CurrentAuth, RESOURCE_SERVER_CONFIG, ResolveScopes } from '@portcullis/resource-server/nest';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { handOverResponse } from './hand-over.js';
import { toMcpAuthInfo } from './mcp-auth-info.js';
import { McpEndpoint } from './mcp-endpoint.service.js';
import { McpScopeResolver } from './mcp-scope.resolver.js';

/**
 * `POST`, `GET` and `DELETE /mcp`: the MCP Streamable HTTP endpoint. The bearer authentication checks every request
 * and decides its scopes from the JSON-RPC content before the SDK sees it; the SDK then writes the response
 * itself (JSON or an SSE stream), so the reply is handed over to it.
 */
@Controller('mcp')
@ResolveScopes(McpScopeResolver)
export class McpController {
  constructor(
    @Inject(McpEndpoint) private readonly endpoint: McpEndpoint,
    @Inject(RESOURCE_SERVER_CONFIG) private readonly config: ResourceServerConfig,
  ) {}

  @Post()
  post(
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
    @CurrentAuth() auth: AuthInfo,
  ): Promise<void> {
    return this.serve(request, reply, auth);
  }

  @Get()
  get(
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
    @CurrentAuth() auth: AuthInfo,
  ): Promise<void> {
    return this.serve(request, reply, auth);
  }

  @Delete()
  delete(
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
    @CurrentAuth() auth: AuthInfo,
  ): Promise<void> {
    return this.serve(request, reply, auth);
  }

  private async serve(request: FastifyRequest, reply: FastifyReply, auth: AuthInfo): Promise<void> {
    const response = handOverResponse(reply);
    const raw = request.raw as IncomingMessage & { auth?: McpAuthInfo };
    raw.auth = toMcpAuthInfo(auth, this.config.resource, this.config.metadataUrl);
    await this.endpoint.handle(raw, response, request.body);
  }
}
