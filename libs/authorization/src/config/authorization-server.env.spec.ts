import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
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
    expect(signingKeys).toEqual({ reloadInterval: 30, jwksMaxAge: 300 });
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
      activationDelay: 65,
    });
  });

  it('refuse an activation delay shorter than a key set may be cached plus one reload interval', () => {
    expect(problems({ SIGNING_KEY_ACTIVATION_DELAY: '329' })).toEqual([
      'SIGNING_KEY_ACTIVATION_DELAY: must be at least JWKS_MAX_AGE + SIGNING_KEY_RELOAD_INTERVAL (330 s)',
    ]);
    expect(problems({ SIGNING_KEY_ACTIVATION_DELAY: '330' })).toEqual([]);
    expect(problems({ JWKS_MAX_AGE: '0' })).toHaveLength(1);
  });
});
