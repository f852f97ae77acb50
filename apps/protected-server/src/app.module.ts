import { Module } from '@nestjs/common';
import { configureApp, type AppOverrides, type ConfiguredApp, type EnvSource } from '@portcullis/platform';
import { ResourceServerModule } from '@portcullis/resource-server';
import { envSchema } from './env.schema.js';
import { McpModule } from './mcp/mcp.module.js';
import { NotesModule } from './notes/notes.module.js';
import { resourceServerOptions } from './resource-server.options.js';

/**
 * The protected server's root module: a protected resource (PRM, bearer authentication, RFC 6750 errors) serving
 * MCP at `/mcp` and the notes REST route at `/api/notes`.
 */
@Module({})
export class AppModule {
  static configure(env: EnvSource, overrides?: AppOverrides): ConfiguredApp {
    return configureApp({
      name: 'protected-server',
      module: AppModule,
      schema: envSchema,
      env,
      overrides,
      imports: (config) => [
        ResourceServerModule.forRoot(resourceServerOptions(config)),
        NotesModule,
        McpModule,
      ],
    });
  }
}
