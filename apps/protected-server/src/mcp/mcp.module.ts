import { Module } from '@nestjs/common';
import { NotesModule } from '../notes/notes.module.js';
import { McpController } from './mcp.controller.js';
import { McpEndpoint } from './mcp-endpoint.service.js';
import { McpScopeResolver } from './mcp-scope.resolver.js';
import { McpTransportSecurityHook } from './mcp-transport-security.hook.js';

/** The MCP endpoint of the protected server, serving the notes tools and resources. */
@Module({
  imports: [NotesModule],
  controllers: [McpController],
  providers: [McpEndpoint, McpScopeResolver, McpTransportSecurityHook],
  exports: [McpEndpoint],
})
export class McpModule {}
