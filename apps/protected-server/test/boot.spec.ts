import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ConfigError } from '@portcullis/platform';
import { startApp, type TestApp } from '@portcullis/testing';
import { AppModule } from '../src/app.module.js';

describe('the protected-server', () => {
  let app: TestApp;
  beforeAll(async () => {
    // Defaults only: its authorization server (http://localhost:4000) is not running, and it boots anyway.
    app = await startApp(AppModule);
  });
  afterAll(async () => {
    await app?.close();
  });

  it('is alive and ready once its database is migrated', async () => {
    const alive = await fetch(`${app.url}/healthz`);
    expect(alive.status).toBe(200);
    expect(await alive.json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${app.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(ready.headers.get('cache-control')).toBe('no-store');
    expect(await app.database.database.pendingMigrations()).toEqual([]);
  });

  it('echoes a sane X-Request-Id and replaces one that is not', async () => {
    const kept = await fetch(`${app.url}/healthz`, { headers: { 'x-request-id': 'trace-42' } });
    expect(kept.headers.get('x-request-id')).toBe('trace-42');
    const replaced = await fetch(`${app.url}/healthz`, { headers: { 'x-request-id': 'bad id\twith tab' } });
    expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('publishes its default resource and authorization server without contacting the latter', async () => {
    const response = await fetch(`${app.url}/.well-known/oauth-protected-resource/mcp`);
    expect(await response.json()).toEqual({
      resource: 'http://localhost:4100/mcp',
      authorization_servers: ['http://localhost:4000'],
      scopes_supported: ['notes:read', 'notes:write'],
      bearer_methods_supported: ['header'],
      resource_name: 'Portcullis notes',
    });
  });
});

describe('the protected-server configuration', () => {
  const refusal = (env: Record<string, string>) => {
    try {
      AppModule.configure(env);
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return (error as Error).message;
    }
    throw new Error('the configuration was accepted');
  };

  it.each([
    [{ RESOURCE_URI: 'http://localhost:4100/mcp#fragment' }, 'RESOURCE_URI'],
    [{ RESOURCE_URI: 'http://mcp.example.com/mcp' }, 'RESOURCE_URI'],
    [{ AUTHORIZATION_SERVER: 'not a url' }, 'AUTHORIZATION_SERVER'],
    [{ SPEC_REVISION: '2024-11-05' }, 'SPEC_REVISION'],
    [{ TOKEN_VALIDATION: 'introspection' }, 'TOKEN_VALIDATION'],
    [{ INTROSPECTION_CLIENT_ID: 'rs' }, 'INTROSPECTION_CLIENT_SECRET'],
  ])('refuses %j naming %s', (env, variable) => {
    expect(refusal(env)).toContain(variable);
  });
});
