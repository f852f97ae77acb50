/**
 * A small Nest app on Fastify that imports `ResourceServerModule` the way a real app does, with routes for each
 * way of protecting one, listening on a random loopback port. Like the Portcullis protected server, it answers every
 * error in the RFC 6750 format by providing `ResourceServerExceptionFilter` as its `APP_FILTER`, unless asked not to
 * (a host app with error handling of its own).
 */
import 'reflect-metadata';
import {
  Body,
  Controller,
  Get,
  Injectable,
  Module,
  Post,
  type LoggerService,
  type Provider,
  type Type,
} from '@nestjs/common';
import { APP_FILTER, NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { AuthInfo, ResourceServerOptions } from '../../src/index.js';
import {
  CurrentAuth,
  Protected,
  RequireScopes,
  ResolveScopes,
  ResourceServerExceptionFilter,
  ResourceServerModule,
  type RequiredScopesResolver,
} from '../../src/nest/index.js';

/** Needs `reports:write` for a body `{ "action": "write" }`, nothing beyond a valid token otherwise. */
@Injectable()
export class ActionScopes implements RequiredScopesResolver<{ body?: unknown }> {
  requiredScopes(request: { body?: unknown }): string[] {
    const action = (request.body as { action?: unknown } | undefined)?.action;
    return action === 'write' ? ['reports:write', 'reports:read'] : [];
  }
}

@Controller('api')
class TestController {
  @Get('public')
  open(): { open: true } {
    return { open: true };
  }

  @Get('me')
  @Protected()
  me(@CurrentAuth() auth: AuthInfo): AuthInfo {
    return auth;
  }

  @Post('notes')
  @RequireScopes('notes:write')
  write(@CurrentAuth() auth: AuthInfo): { owner: string } {
    return { owner: auth.subject };
  }

  @Post('action')
  @ResolveScopes(ActionScopes)
  action(@Body() body: unknown, @CurrentAuth() auth: AuthInfo): { body: unknown; scopes: readonly string[] } {
    return { body, scopes: auth.scopes };
  }

  @Get('boom')
  @Protected()
  boom(): never {
    throw new Error('database password is hunter2');
  }
}

/** Log lines the app wrote, for asserting that a cause was logged and not sent. */
export class CapturingLogger implements LoggerService {
  readonly lines: string[] = [];
  log(message: unknown): void {
    this.lines.push(String(message));
  }
  error(message: unknown, stack?: unknown): void {
    this.lines.push(`${String(message)} ${String(stack ?? '')}`);
  }
  warn(message: unknown): void {
    this.lines.push(String(message));
  }
}

export interface ProtectedTestApp {
  readonly url: string;
  readonly logger: CapturingLogger;
  close(): Promise<void>;
}

export async function startProtectedTestApp(
  options: ResourceServerOptions,
  app: { appFilter?: boolean; controllers?: Type<unknown>[] } = {},
): Promise<ProtectedTestApp> {
  const appFilter: Provider[] =
    app.appFilter === false ? [] : [{ provide: APP_FILTER, useClass: ResourceServerExceptionFilter }];
  @Module({
    imports: [ResourceServerModule.forRoot(options)],
    controllers: [TestController, ...(app.controllers ?? [])],
    providers: [ActionScopes, ...appFilter],
  })
  class TestAppModule {}

  const logger = new CapturingLogger();
  const nest = await NestFactory.create<NestFastifyApplication>(TestAppModule, new FastifyAdapter(), {
    logger,
    abortOnError: false,
  });
  try {
    await nest.listen(0, '127.0.0.1');
  } catch (error) {
    // An app that refuses to start (a boot check) leaves nothing open behind it.
    await nest.close().catch(() => undefined);
    throw error;
  }
  const address = nest.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { url: `http://127.0.0.1:${port}`, logger, close: () => nest.close() };
}
