import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { defaultActivationDelay } from '../keys/signing-key-timing.js';
import {
  authorizationServerEnvFields,
  authorizationServerOptionsFromEnv,
  checkAuthorizationServerEnv,
  type AuthorizationServerEnv,
} from './authorization-server.env.js';

const schema = z
  .object({ NODE_ENV: z.string().default('test'), ...authorizationServerEnvFields('http://localhost:4000') })
  .superRefine(checkAuthorizationServerEnv);

function parse(env: Record<string, string>): AuthorizationServerEnv {
  return schema.parse(env);
}

function problems(env: Record<string, string>): string[] {
  const result = schema.safeParse(env);
  return result.success
    ? []
    : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
}

describe('the signing key timing variables', () => {
  it('publish the key set for 300 s and leave the activation delay to its default when unset', () => {
    const { signingKeys } = authorizationServerOptionsFromEnv(parse({}));
    expect(signingKeys).toEqual({ reloadInterval: 30, jwksMaxAge: 300, resourceServerRefetchCooldown: 30 });
  });

  it('pass JWKS_MAX_AGE and SIGNING_KEY_ACTIVATION_DELAY through', () => {
    const env = parse({
      JWKS_MAX_AGE: '60',
      SIGNING_KEY_RELOAD_INTERVAL: '5',
      SIGNING_KEY_ACTIVATION_DELAY: '65',
    });
    expect(authorizationServerOptionsFromEnv(env).signingKeys).toEqual({
      reloadInterval: 5,
      jwksMaxAge: 60,
      resourceServerRefetchCooldown: 30,
      activationDelay: 65,
    });
  });

  it('refuse an activation delay shorter than a key set may be cached plus one reload interval', () => {
    expect(problems({ SIGNING_KEY_ACTIVATION_DELAY: '329' })).toEqual([
      'SIGNING_KEY_ACTIVATION_DELAY: must be at least max(JWKS_MAX_AGE, RESOURCE_SERVER_REFETCH_COOLDOWN) + ' +
        'SIGNING_KEY_RELOAD_INTERVAL (330 s)',
    ]);
    expect(problems({ SIGNING_KEY_ACTIVATION_DELAY: '330' })).toEqual([]);
    expect(problems({ JWKS_MAX_AGE: '0' })).toHaveLength(1);
  });

  it("refuse an activation delay shorter than the resource servers' refetch cooldown plus one reload interval", () => {
    // A short cache lifetime does not shorten the wait: a resource server that fetched the key set, without the new
    // key, from an instance not yet reloaded refetches no sooner than its cooldown (30 s unless said otherwise).
    const short = { JWKS_MAX_AGE: '1', SIGNING_KEY_RELOAD_INTERVAL: '1' };
    expect(problems({ ...short, SIGNING_KEY_ACTIVATION_DELAY: '30' })).toEqual([
      'SIGNING_KEY_ACTIVATION_DELAY: must be at least max(JWKS_MAX_AGE, RESOURCE_SERVER_REFETCH_COOLDOWN) + ' +
        'SIGNING_KEY_RELOAD_INTERVAL (31 s)',
    ]);
    expect(problems({ ...short, SIGNING_KEY_ACTIVATION_DELAY: '31' })).toEqual([]);
    // A deployment that knows its resource servers refetch sooner says so.
    const quick = { ...short, RESOURCE_SERVER_REFETCH_COOLDOWN: '2' };
    expect(problems({ ...quick, SIGNING_KEY_ACTIVATION_DELAY: '3' })).toEqual([]);
    expect(problems({ ...quick, SIGNING_KEY_ACTIVATION_DELAY: '2' })).toHaveLength(1);
    expect(authorizationServerOptionsFromEnv(parse(quick)).signingKeys).toEqual({
      reloadInterval: 1,
      jwksMaxAge: 1,
      resourceServerRefetchCooldown: 2,
    });
    expect(problems({ RESOURCE_SERVER_REFETCH_COOLDOWN: '301' })).toHaveLength(1);
  });

  it.each<Record<string, string>>([
    { JWKS_MAX_AGE: '1', SIGNING_KEY_RELOAD_INTERVAL: '1' },
    { JWKS_MAX_AGE: '300', SIGNING_KEY_RELOAD_INTERVAL: '30' },
    { JWKS_MAX_AGE: '5', SIGNING_KEY_RELOAD_INTERVAL: '2', RESOURCE_SERVER_REFETCH_COOLDOWN: '120' },
  ])('accept the default delay as the least delay for %j', (env) => {
    const parsed = parse(env);
    const delay = defaultActivationDelay(
      parsed.JWKS_MAX_AGE,
      parsed.SIGNING_KEY_RELOAD_INTERVAL,
      parsed.RESOURCE_SERVER_REFETCH_COOLDOWN,
    );
    expect(problems({ ...env, SIGNING_KEY_ACTIVATION_DELAY: String(delay) })).toEqual([]);
  });
});

describe('the RESOURCES variable', () => {
  const resources = (value: unknown) => ({ RESOURCES: JSON.stringify(value) });

  it.each([
    ['scopes_supported', [{ uri: 'https://mail.example/mcp', scopes_supported: ['mail:send', 'email'] }]],
    [
      'scope_hierarchy',
      [
        {
          uri: 'https://mail.example/mcp',
          scopes_supported: ['mail:read'],
          scope_hierarchy: { profile: ['mail:read'] },
        },
      ],
    ],
  ])(
    'refuses a resource scope named like an OpenID Connect claim scope in %s, naming RESOURCES',
    (_where, value) => {
      const found = problems(resources(value));
      expect(found).toHaveLength(1);
      expect(found[0]).toMatch(/^RESOURCES\.0\.scope/);
      expect(found[0]).toMatch(
        /must not be (email|profile): the authorization server grants the OpenID Connect scope/,
      );
    },
  );

  it('accepts scope names that merely contain them', () => {
    expect(
      problems(
        resources([{ uri: 'https://mail.example/mcp', scopes_supported: ['email:send', 'profile.read'] }]),
      ),
    ).toEqual([]);
  });
});
