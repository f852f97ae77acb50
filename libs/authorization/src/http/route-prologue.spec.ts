import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Controller, Get, Inject, Module, Post, type NestModule } from '@nestjs/common';
import { APP_FILTER, NestFactory } from '@nestjs/core';
import { FastifyAdapter, RouteConfig, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { OAuthError } from '@portcullis/protocol';
import type { BackChannelCheck } from '../back-channel/back-channel-check.js';
import { noStoreCheck } from '../back-channel/checks/no-store.check.js';
import { AUTHORIZATION_SERVER_OPTIONS } from '../config/authorization-server.options.js';
import { RATE_LIMIT_STORE } from '../throttling/rate-limit.js';
import { MemoryRateLimitStore } from '../throttling/rate-limit.store.js';
import { OAuthExceptionFilter } from './oauth-exception.filter.js';
import { BackChannel, RateLimit, RoutePrologueHook } from './route-prologue.js';

// What ran, in order: a refused request must reach neither a later step nor the handler.
const ran: string[] = [];

const recording = (name: string): BackChannelCheck => ({
  name,
  run() {
    ran.push(name);
  },
});
const refusing: BackChannelCheck = {
  name: 'refusing',
  run() {
    ran.push('refusing');
    throw new OAuthError('invalid_request', 'refused by the check');
  },
};

@Controller()
class PrologueController {
  @Post('limited')
  @RateLimit('token')
  @BackChannel([noStoreCheck, recording('first'), recording('second')])
  limited(): { ok: true } {
    ran.push('handler');
    return { ok: true };
  }

  @Post('refused')
  @BackChannel([recording('first'), refusing, recording('after')])
  refused(): { ok: true } {
    ran.push('handler');
    return { ok: true };
  }

  @Get('configured')
  @RateLimit('login')
  @RouteConfig({ label: 'kept' })
  configured(): { ok: true } {
    ran.push('handler');
    return { ok: true };
  }
}

/** A @RouteConfig written above the decorators replaces the prologue they recorded. */
@Controller('lost')
class LostPrologueController {
  @Get()
  @RouteConfig({ label: 'replaces' })
  @RateLimit('login')
  lost(): string {
    ran.push('lost');
    return 'served';
  }
}

const OPTIONS = { issuer: 'http://127.0.0.1:9', rateLimits: { token: 2, login: 5, register: 5 } };

async function start(controller: new () => unknown): Promise<NestFastifyApplication> {
  @Module({
    controllers: [controller],
    providers: [
      RoutePrologueHook,
      { provide: RATE_LIMIT_STORE, useValue: new MemoryRateLimitStore() },
      { provide: AUTHORIZATION_SERVER_OPTIONS, useValue: OPTIONS },
      { provide: APP_FILTER, useClass: OAuthExceptionFilter },
    ],
  })
  class PrologueModule implements NestModule {
    constructor(@Inject(RoutePrologueHook) private readonly prologue: RoutePrologueHook) {}
    configure(): void {
      this.prologue.attach();
    }
  }
  const app = await NestFactory.create<NestFastifyApplication>(PrologueModule, new FastifyAdapter(), {
    logger: false,
    abortOnError: false,
  });
  await app.listen(0, '127.0.0.1');
  return app;
}

/** A request over loopback HTTP: status, headers and the body as text. */
async function send(app: NestFastifyApplication, method: string, path: string) {
  const response = await fetch(`${await app.getUrl()}${path}`, { method, redirect: 'manual' });
  return { status: response.status, headers: response.headers, body: await response.text() };
}

describe('route prologues (rate limit, back-channel checks) as Fastify preHandler hooks', () => {
  let app: NestFastifyApplication;
  beforeAll(async () => {
    app = await start(PrologueController);
  });
  afterAll(async () => {
    await app.close();
  });

  it('runs the rate limit, then the checks in order, then the handler', async () => {
    ran.length = 0;
    const response = await send(app, 'POST', '/limited');
    expect(response.status).toBe(201);
    expect(response.headers.get('ratelimit-limit')).toBe('2');
    expect(response.headers.get('ratelimit-remaining')).toBe('1');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(ran).toEqual(['first', 'second', 'handler']);
  });

  it('refuses over the limit before any check or the handler runs', async () => {
    expect((await send(app, 'POST', '/limited')).status).toBe(201);
    ran.length = 0;
    const response = await send(app, 'POST', '/limited');
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(response.headers.get('ratelimit-remaining')).toBe('0');
    expect(JSON.parse(response.body)).toMatchObject({ error: 'temporarily_unavailable' });
    expect(response.headers.get('location')).toBeNull();
    expect(ran).toEqual([]);
  });

  it('ends the request at the first check that throws, answered by the exception filter', async () => {
    ran.length = 0;
    const response = await send(app, 'POST', '/refused');
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body)).toEqual({
      error: 'invalid_request',
      error_description: 'refused by the check',
    });
    expect(ran).toEqual(['first', 'refusing']);
  });

  it('keeps a @RouteConfig written below the decorators, and the prologue with it', async () => {
    ran.length = 0;
    const response = await send(app, 'GET', '/configured');
    expect(response.status).toBe(200);
    expect(response.headers.get('ratelimit-limit')).toBe('5');
    expect(ran).toEqual(['handler']);
  });

  it('refuses to start when a route lost its prologue to a @RouteConfig written above the decorators', async () => {
    ran.length = 0;
    await expect(start(LostPrologueController)).rejects.toThrow(
      /LostPrologueController\.lost has a rate limit or back-channel checks, but its route was not given them/,
    );
    expect(ran).toEqual([]);
  });
});
