import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Controller, Get, Param, Req } from '@nestjs/common';
import { FASTIFY_ROUTE_CONFIG_METADATA as PLATFORM_ROUTE_CONFIG_METADATA } from '@nestjs/platform-fastify/constants.js';
import { RouteConfig } from '@nestjs/platform-fastify';
import { startTestAuthorizationServer, type TestAuthorizationServer } from '@portcullis/testing';
import type { FastifyRequest } from 'fastify';
import type { AuthInfo } from '../../src/index.js';
import { CurrentAuth, Protected, RequireScopes } from '../../src/nest/index.js';
import { FASTIFY_ROUTE_CONFIG_METADATA } from '../../src/nest/route-protection.js';
import { bearer, bearerChallengeOf } from '../support/http.js';
import { startProtectedTestApp, type ProtectedTestApp } from '../support/protected-test-app.js';

const RESOURCE = 'http://127.0.0.1:9/api';

// How many times each handler ran: a refused request must never reach its handler.
const calls: Record<string, number> = {};
const ran = (name: string) => {
  calls[name] = (calls[name] ?? 0) + 1;
};

/** The controller's scope, overridden by one route; a route with a parameter; a route config kept below it. */
@Controller('items')
@RequireScopes('items:read')
class ItemsController {
  @Get(':id')
  one(@Param('id') id: string, @CurrentAuth() auth: AuthInfo): { id: string; subject: string } {
    ran('one');
    return { id, subject: auth.subject };
  }

  @Get(':id/secret')
  @RequireScopes('items:admin')
  secret(@Param('id') id: string): { id: string } {
    ran('secret');
    return { id };
  }

  @Get(':id/configured')
  @Protected()
  @RouteConfig({ label: 'kept' })
  configured(@Req() request: FastifyRequest): { label: unknown } {
    ran('configured');
    return { label: (request.routeOptions.config as unknown as Record<string, unknown>)['label'] };
  }
}

/** A @RouteConfig written above the decorator replaces the protection it recorded. */
@Controller('lost')
class LostProtectionController {
  @Get()
  @RouteConfig({ label: 'replaces' })
  @RequireScopes('items:read')
  lost(): string {
    ran('lost');
    return 'served';
  }
}

describe('routes protected through the Fastify route configuration', () => {
  let as: TestAuthorizationServer;
  let app: ProtectedTestApp;

  beforeAll(async () => {
    as = await startTestAuthorizationServer({ audience: RESOURCE });
    app = await startProtectedTestApp(
      {
        resource: RESOURCE,
        authorizationServers: [as.issuer],
        scopesSupported: ['items:read', 'items:admin'],
      },
      { controllers: [ItemsController] },
    );
  });
  afterAll(async () => {
    await app?.close();
    await as?.close();
  });

  it('names the platform’s own route configuration key', () => {
    expect(FASTIFY_ROUTE_CONFIG_METADATA).toBe(PLATFORM_ROUTE_CONFIG_METADATA);
  });

  it('protects a route with a parameter with its controller’s scope', async () => {
    const before = calls['one'] ?? 0;
    const missing = await fetch(`${app.url}/items/7`);
    expect(missing.status).toBe(401);
    expect(bearerChallengeOf(missing).params['scope']).toBe('items:read');
    const short = await fetch(`${app.url}/items/7`, {
      headers: bearer(await as.mint({ claims: { scope: 'other' } })),
    });
    expect(short.status).toBe(403);
    expect(bearerChallengeOf(short).params['error']).toBe('insufficient_scope');
    // Fastify's HEAD route for the GET is a route of its own: protected too.
    const head = await fetch(`${app.url}/items/7`, { method: 'HEAD' });
    expect(head.status).toBe(401);
    expect(calls['one'] ?? 0).toBe(before);

    const ok = await fetch(`${app.url}/items/7`, {
      headers: bearer(await as.mint({ claims: { scope: 'items:read', sub: 'alice' } })),
    });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ id: '7', subject: 'alice' });
    expect(calls['one']).toBe(before + 1);
  });

  it('lets a route’s own scopes override its controller’s', async () => {
    const before = calls['secret'] ?? 0;
    const reader = await fetch(`${app.url}/items/7/secret`, {
      headers: bearer(await as.mint({ claims: { scope: 'items:read' } })),
    });
    expect(reader.status).toBe(403);
    expect(bearerChallengeOf(reader).params['scope']).toBe('items:admin');
    expect(calls['secret'] ?? 0).toBe(before);
    const admin = await fetch(`${app.url}/items/7/secret`, {
      headers: bearer(await as.mint({ claims: { scope: 'items:admin' } })),
    });
    expect(admin.status).toBe(200);
    expect(calls['secret']).toBe(before + 1);
  });

  it('keeps a @RouteConfig written below the decorator, and the protection', async () => {
    const before = calls['configured'] ?? 0;
    const missing = await fetch(`${app.url}/items/7/configured`);
    expect(missing.status).toBe(401);
    expect(calls['configured'] ?? 0).toBe(before);
    const ok = await fetch(`${app.url}/items/7/configured`, {
      headers: bearer(await as.mint({ claims: { scope: 'items:read' } })),
    });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ label: 'kept' });
  });

  it('refuses to start when a @RouteConfig above the decorator replaced the protection', async () => {
    await expect(
      startProtectedTestApp(
        { resource: RESOURCE, authorizationServers: [as.issuer], scopesSupported: ['items:read'] },
        { controllers: [LostProtectionController] },
      ),
    ).rejects.toThrow(
      /LostProtectionController\.lost is protected by a scope decorator, but its route was not given/,
    );
    expect(calls['lost']).toBeUndefined();
  });
});
