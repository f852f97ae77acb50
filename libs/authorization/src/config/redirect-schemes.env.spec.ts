import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import {
  authorizationServerEnvFields,
  authorizationServerOptionsFromEnv,
} from './authorization-server.env.js';

const schema = z.object({
  NODE_ENV: z.string().default('test'),
  ...authorizationServerEnvFields('http://localhost:4000'),
});

function problems(value: string): string[] {
  const result = schema.safeParse({ ALLOWED_REDIRECT_SCHEMES: value });
  return result.success ? [] : result.error.issues.map((issue) => `${issue.path.join('.')} ${issue.message}`);
}

describe('ALLOWED_REDIRECT_SCHEMES', () => {
  it('allows no private-use scheme when unset or empty', () => {
    expect(authorizationServerOptionsFromEnv(schema.parse({})).allowedRedirectSchemes).toEqual([]);
    expect(
      authorizationServerOptionsFromEnv(schema.parse({ ALLOWED_REDIRECT_SCHEMES: '' }))
        .allowedRedirectSchemes,
    ).toEqual([]);
  });

  it('reads a comma-separated list, lowercased, each scheme once', () => {
    const env = schema.parse({ ALLOWED_REDIRECT_SCHEMES: ' cursor, com.example.Notes ,cursor,' });
    expect(authorizationServerOptionsFromEnv(env).allowedRedirectSchemes).toEqual([
      'cursor',
      'com.example.notes',
    ]);
  });

  it.each([
    ['javascript', 'javascript is not a private-use scheme'],
    ['data', 'data is not a private-use scheme'],
    ['vbscript', 'vbscript is not a private-use scheme'],
    ['file', 'file is not a private-use scheme'],
    ['https', 'https is not a private-use scheme'],
    ['cursor,http', 'http is not a private-use scheme'],
    ['my app', 'is not a URI scheme'],
    ['cursor:', 'is not a URI scheme'],
  ])('stops the boot for %j, naming the variable', (value, message) => {
    const found = problems(value);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^ALLOWED_REDIRECT_SCHEMES /);
    expect(found[0]).toContain(message);
  });
});
