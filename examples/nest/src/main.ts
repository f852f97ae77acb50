// A NestJS app (Fastify platform) serving MCP behind the bearer guard of @portcullis/resource-server/nest, which also
// serves the RFC 9728 metadata and answers the guard's refusals (the app's other errors stay its own).
import 'reflect-metadata';
import { Controller, Module, Post, Req, Res } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer, type ServerContext } from '@modelcontextprotocol/server';
import { resolveResourceServerConfig, toMcpAuthInfo, type AuthInfo } from '@portcullis/resource-server';
import { CurrentAuth, RequireScopes, ResourceServerModule } from '@portcullis/resource-server/nest';
import type { FastifyReply, FastifyRequest } from 'fastify';

const { ISSUER, PORT = '3000', HOST = '127.0.0.1' } = process.env;
if (!ISSUER) throw new Error('Set ISSUER: the authorization server whose access tokens this server accepts');
const RESOURCE = process.env['RESOURCE'] ?? `http://localhost:${PORT}/mcp`;
const options = { resource: RESOURCE, authorizationServers: [ISSUER], scopesSupported: ['notes:read'] };
const config = resolveResourceServerConfig(options);

function notesServer(): McpServer {
  const server = new McpServer({ name: 'notes-nest', version: '1.0.0' });
  server.registerTool('notes_list', { description: 'Lists your notes' }, async (ctx: ServerContext) => {
    const subject = String(ctx.http?.authInfo?.extra?.['subject']); // the token's `sub`
    return { content: [{ type: 'text', text: `notes of ${subject}: none yet` }] };
  });
  return server;
}
const serve = toNodeHandler(createMcpHandler(notesServer));

@Controller(new URL(RESOURCE).pathname)
class McpController {
  @Post()
  @RequireScopes('notes:read')
  async post(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @CurrentAuth() auth: AuthInfo) {
    reply.hijack(); // the SDK writes the response itself (JSON or an event stream)
    // The SDK's view of the token for the tool handlers (`ctx.http.authInfo`); its `token` is always empty.
    const raw = Object.assign(request.raw, { auth: toMcpAuthInfo(auth, config) });
    await serve(raw, reply.raw, request.body);
  }
}

@Module({ imports: [ResourceServerModule.forRoot(options)], controllers: [McpController] })
class AppModule {}

const app = await NestFactory.create(AppModule, new FastifyAdapter(), { logger: ['error', 'warn'] });
await app.listen(Number(PORT), HOST);
console.log(`listening on ${RESOURCE}`);
