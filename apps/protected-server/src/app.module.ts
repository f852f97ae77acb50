import { Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { DPOP_EXTENSION_ID } from '@portcullis/extension-dpop';
import type { ExtensionRegistry } from '@portcullis/extensions';
import { configureApp, type AppOverrides, type ConfiguredApp, type EnvSource } from '@portcullis/platform';
import { ResourceServerExceptionFilter, ResourceServerModule } from '@portcullis/resource-server/nest';
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
  /**
   * `host.extensions`: what the embedding code (never the environment) composes beside those `EXTENSIONS` names,
   * never instead of them.
   */
  static configure(
    env: EnvSource,
    overrides?: AppOverrides,
    host: { readonly extensions?: ExtensionRegistry } = {},
  ): Promise<ConfiguredApp> {
    return configureApp({
      name: 'protected-server',
      module: AppModule,
      schema: envSchema,
      env,
      overrides,
      // Module factories get the authorization server whose tokens this server accepts.
      extensions: (config) => ({
        issuer: config.AUTHORIZATION_SERVER,
        revision: config.SPEC_REVISION,
        add: host.extensions,
      }),
      // This app answers every error in the RFC 6750 format, its unknown routes included (the module itself filters
      // only its own routes' refusals, so a host app keeps its errors).
      providers: [{ provide: APP_FILTER, useClass: ResourceServerExceptionFilter }],
      // The development defaults are localhost URLs; DPoP proofs' jti replay store is shared through Redis.
      production: (config) => [
        { name: 'RESOURCE_URI', why: 'the development default is http://localhost:4100/mcp' },
        { name: 'AUTHORIZATION_SERVER', why: 'the development default is http://localhost:4000' },
        ...(config.EXTENSIONS.has(DPOP_EXTENSION_ID)
          ? [
              {
                name: 'REDIS_URL',
                why: "with dpop, proofs' jti are shared by every instance through it",
                unless: 'SINGLE_INSTANCE',
              },
            ]
          : []),
      ],
      imports: (config) => [
        ResourceServerModule.forRoot(resourceServerOptions(config)),
        NotesModule,
        McpModule.forRoot(
          config.UPSTREAM_USER_API_URL
            ? {
                upstreamUserApiUrl: config.UPSTREAM_USER_API_URL,
                upstreamConnection: config.UPSTREAM_CONNECTION,
              }
            : {},
        ),
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
