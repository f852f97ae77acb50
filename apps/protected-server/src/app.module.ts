import { Module } from '@nestjs/common';
import { DPOP_EXTENSION_ID } from '@portcullis/extension-dpop';
import { configureApp, type AppOverrides, type ConfiguredApp, type EnvSource } from '@portcullis/platform';
import { ResourceServerModule } from '@portcullis/resource-server';
import { DpopModule } from './dpop/dpop.module.js';
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
        DpopModule.forRoot({
          composed: config.EXTENSIONS.has(DPOP_EXTENSION_ID),
          nonce: config.DPOP_NONCE,
          sharedNonces: config.DPOP_NONCE_SECRET !== undefined,
          store: config.DPOP_REPLAY_STORE,
        }),
      ],
    });
  }
}
