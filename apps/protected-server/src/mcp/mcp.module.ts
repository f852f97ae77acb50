import { Module, type DynamicModule } from '@nestjs/common';
import { NotesModule } from '../notes/notes.module.js';
import { McpController } from './mcp.controller.js';
import { MCP_OPTIONS, McpEndpoint, type McpOptions } from './mcp-endpoint.service.js';
import { McpScopeResolver } from './mcp-scope.resolver.js';
import { McpTransportSecurityHook } from './mcp-transport-security.hook.js';

/** The MCP endpoint of the protected server, serving the notes tools and resources. */
@Module({})
export class McpModule {
  static forRoot(options: McpOptions = {}): DynamicModule {
    return {
      module: McpModule,
      imports: [NotesModule],
      controllers: [McpController],
      providers: [
        { provide: MCP_OPTIONS, useValue: options },
        McpEndpoint,
        McpScopeResolver,
        McpTransportSecurityHook,
      ],
      exports: [McpEndpoint],
    };
  }
}
