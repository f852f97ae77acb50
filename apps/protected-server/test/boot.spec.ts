import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ConfigError } from '@portcullis/platform';
import { expectBootedApp, startApp, type TestApp } from '@portcullis/testing';
import { AppModule } from '../src/app.module.js';
import { envSchema } from '../src/env.schema.js';

describe('the protected-server', () => {
  let app: TestApp;
  beforeAll(async () => {
    // Defaults only: its authorization server (http://localhost:4000) is not running, and it boots anyway.
    app = await startApp(AppModule);
  });
  afterAll(async () => {
    await app?.close();
  });

  it('is alive and ready once its database is migrated, and echoes sane request ids', async () => {
    await expectBootedApp(app);
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
  const refusal = async (env: Record<string, string>) => {
    try {
      await AppModule.configure(env);
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
    [{ TOKEN_CACHE_TTL: '-1' }, 'TOKEN_CACHE_TTL'],
    [{ TOKEN_CACHE_TTL: '1.5' }, 'TOKEN_CACHE_TTL'],
    [{ TOKEN_CACHE_TTL: '30s' }, 'TOKEN_CACHE_TTL'],
    [{ CORS_ORIGINS: 'https://app.example.com/' }, 'CORS_ORIGINS'],
    [{ CORS_ORIGINS: 'http://localhost:6274,*' }, 'CORS_ORIGINS'],
    [{ CORS_ORIGINS: 'app.example.com' }, 'CORS_ORIGINS'],
    [
      { UPSTREAM_USER_API_URL: 'https://api.github.com/user' },
      'UPSTREAM_USER_API_URL needs INTROSPECTION_CLIENT_ID',
    ],
    [
      {
        UPSTREAM_USER_API_URL: 'http://api.github.com/user',
        INTROSPECTION_CLIENT_ID: 'rs',
        INTROSPECTION_CLIENT_SECRET: 's',
      },
      'UPSTREAM_USER_API_URL',
    ],
  ])('refuses %j naming %s', async (env, variable) => {
    expect(await refusal(env)).toContain(variable);
  });

  it('allows loopback browser origins by default in development, none in production, exactly CORS_ORIGINS when set', async () => {
    expect(envSchema.parse({}).BROWSER_ORIGINS).toEqual({ loopback: true });
    expect(envSchema.parse({ NODE_ENV: 'production' }).BROWSER_ORIGINS).toEqual({ loopback: false });
    expect(
      envSchema.parse({
        NODE_ENV: 'production',
        CORS_ORIGINS: 'https://app.example.com, http://localhost:6274',
      }).BROWSER_ORIGINS,
    ).toEqual({ origins: ['https://app.example.com', 'http://localhost:6274'] });
    expect(await refusal({ CORS_ORIGINS: 'https://App.example.com' })).toContain(
      'CORS_ORIGINS https://App.example.com must be written as the browser sends it, https://app.example.com',
    );
  });

  // The authorization server refuses these as its ISSUER; its tokens would never match them here either.
  it.each([
    [{ AUTHORIZATION_SERVER: 'http://localhost:4000/' }, 'AUTHORIZATION_SERVER must not end with /'],
    [
      { AUTHORIZATION_SERVER: 'http://as.example' },
      'AUTHORIZATION_SERVER must be https (http only on a loopback host)',
    ],
    [{ EXTRA_AUTHORIZATION_SERVERS: 'http://localhost:4200/' }, 'http://localhost:4200/ must not end with /'],
  ])('applies the authorization server’s issuer rule to %j', async (env, message) => {
    expect(await refusal(env)).toContain(message);
  });
});

describe('the protected-server in production', () => {
  const complete = {
    NODE_ENV: 'production',
    METRICS: 'off',
    RESOURCE_URI: 'https://mcp.example.com/mcp',
    AUTHORIZATION_SERVER: 'https://auth.example.com',
    DATABASE_URL: 'postgresql://portcullis@db.example.com/notes',
  };

  it('starts with its resource, authorization server and database named', async () => {
    await expect(AppModule.configure(complete)).resolves.toBeDefined();
  });

  it('refuses to guess: each development default left in place is named', async () => {
    await expect(AppModule.configure({ NODE_ENV: 'production', METRICS: 'off' })).rejects.toThrow(
      /DATABASE_URL is required in production .*RESOURCE_URI is required in production .*AUTHORIZATION_SERVER is required in production/,
    );
  });

  it('with dpop, wants Redis for the proofs shared by every instance, unless it runs as one', async () => {
    await expect(AppModule.configure({ ...complete, EXTENSIONS: 'dpop' })).rejects.toThrow(
      'REDIS_URL is required in production',
    );
    await expect(
      AppModule.configure({ ...complete, EXTENSIONS: 'dpop', SINGLE_INSTANCE: 'true' }),
    ).resolves.toBeDefined();
  });
});

describe('the protected-server DPoP configuration', () => {
  const refusal = async (env: Record<string, string>) => {
    try {
      await AppModule.configure(env);
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return (error as Error).message;
    }
    throw new Error('the configuration was accepted');
  };
  const secret = Buffer.alloc(32, 7).toString('base64url');

  it.each([
    [{ DPOP_REQUIRED: 'true' }, 'DPOP_REQUIRED is set but EXTENSIONS does not include dpop'],
    [{ DPOP_NONCE: 'on' }, 'DPOP_NONCE is set but EXTENSIONS does not include dpop'],
    [{ EXTENSIONS: 'dpop', DPOP_REQUIRED: 'yes' }, 'DPOP_REQUIRED must be true or false'],
    [{ EXTENSIONS: 'dpop', DPOP_NONCE: 'true' }, 'DPOP_NONCE must be on or off'],
    [
      { EXTENSIONS: 'dpop', DPOP_NONCE: 'on', DPOP_NONCE_SECRET: 'c2hvcnQ' },
      'DPOP_NONCE_SECRET must decode to at least 32 bytes',
    ],
    [
      { EXTENSIONS: 'dpop', DPOP_NONCE: 'on', DPOP_NONCE_SECRET: `${secret}==` },
      'DPOP_NONCE_SECRET must be base64url',
    ],
    [{ EXTENSIONS: 'dpop', DPOP_NONCE_SECRET: secret }, 'DPOP_NONCE_SECRET is set but DPOP_NONCE is not on'],
    [{ EXTENSIONS: 'dpop', DPOP_PROOF_MAX_AGE: '301' }, 'DPOP_PROOF_MAX_AGE must be from 1 to 300 seconds'],
    [{ EXTENSIONS: 'dpop', DPOP_PROOF_MAX_AGE: '0' }, 'DPOP_PROOF_MAX_AGE must be from 1 to 300 seconds'],
    [
      { EXTENSIONS: 'dpop', REDIS_URL: 'http://127.0.0.1:6379' },
      'REDIS_URL must be a redis:// or rediss:// URL',
    ],
  ])('refuses %j: %s', async (env, message) => {
    expect(await refusal(env)).toContain(message);
  });

  it('accepts DPoP with every setting', async () => {
    const configured = await AppModule.configure({
      EXTENSIONS: 'dpop',
      DPOP_REQUIRED: 'true',
      DPOP_NONCE: 'on',
      DPOP_NONCE_SECRET: secret,
      DPOP_PROOF_MAX_AGE: '120',
    });
    expect(configured.port).toBe(4100);
  });
});
