import { Inject, Module, type DynamicModule, type NestModule } from '@nestjs/common';
import { NotesModule } from '../notes/notes.module.js';
import { McpController } from './mcp.controller.js';
import { MCP_OPTIONS, McpEndpoint, type McpOptions } from './mcp-endpoint.service.js';
import { McpKeptAnswersHook } from './mcp-kept-answers.hook.js';
import { McpScopeResolver } from './mcp-scope.resolver.js';
import { McpTransportSecurityHook } from './mcp-transport-security.hook.js';

/** The MCP endpoint of the protected server, serving the notes tools and resources. */
@Module({})
export class McpModule implements NestModule {
  constructor(@Inject(McpKeptAnswersHook) private readonly keptAnswers: McpKeptAnswersHook) {}

  // When Nest configures middleware, before any route is registered (after the resource server's module, which the
  // app imports first, attached the authentication): the kept tools/list answers come after it.
  configure(): void {
    this.keptAnswers.attach();
  }

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
        McpKeptAnswersHook,
      ],
      exports: [McpEndpoint, McpKeptAnswersHook],
    };
  }
}
