/**
 * The resource-server benchmark's app: the platform every Portcullis app runs on (logging, metrics, health, the
 * database) with `libs/resource-server`, and one handler served twice, at `/bench/guarded` behind
 * `@RequireScopes('notes:read')` and at `/bench/open` without: the difference between the two is what the guard
 * costs a route. Configured like the protected server (`RESOURCE_URI`, `AUTHORIZATION_SERVER`).
 */
import 'reflect-metadata';
import { Controller, Get, Module } from '@nestjs/common';
import {
  baseEnvSchema,
  configureApp,
  runMain,
  type AppOverrides,
  type EnvSource,
} from '@portcullis/platform';
import { RequireScopes, ResourceServerModule } from '@portcullis/resource-server/nest';
import { z } from 'zod';

const ANSWER = { notes: [{ id: 'n1', title: 'a note', body: 'the same answer on both routes' }] };

@Controller('bench')
class BenchController {
  @Get('open')
  open() {
    return ANSWER;
  }

  @Get('guarded')
  @RequireScopes('notes:read')
  guarded() {
    return ANSWER;
  }
}

const envSchema = baseEnvSchema({ port: 0 }).extend({
  RESOURCE_URI: z.url(),
  AUTHORIZATION_SERVER: z.url(),
});

@Module({ controllers: [BenchController] })
class GuardedBenchModule {
  static configure(env: EnvSource, overrides?: AppOverrides) {
    return configureApp({
      name: 'bench-resource-server',
      module: GuardedBenchModule,
      schema: envSchema,
      env,
      ...(overrides ? { overrides } : {}),
      imports: (config) => [
        ResourceServerModule.forRoot({
          resource: config.RESOURCE_URI,
          authorizationServers: [config.AUTHORIZATION_SERVER],
          scopesSupported: ['notes:read'],
        }),
      ],
    });
  }
}

await runMain({ name: 'bench-resource-server', module: GuardedBenchModule, env: process.env });
