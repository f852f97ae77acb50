import { describe, expect, it } from '@jest/globals';
import { isChallengeParameterName, isChallengeParameterValue } from './challenge-parameter.check.js';

describe('isChallengeParameterName', () => {
  it.each(['tenant', 'x-tenant', 'Tenant_Hint', "a!#$%&'*+.^_`|~9"])('accepts the token %j', (name) => {
    expect(isChallengeParameterName(name)).toBe(true);
  });

  it.each(['', 'a b', 'a=b', 'a"b', 'a,b', 'a;b', 'tenant\r\n', 'ténant'])(
    'refuses the non-token %j',
    (name) => {
      expect(isChallengeParameterName(name)).toBe(false);
    },
  );
});

describe('isChallengeParameterValue', () => {
  it.each(['', 'acme', 'a value with "quotes" and \\ backslash', 'https://as.example.com/x?y=z'])(
    'accepts %j',
    (value) => {
      expect(isChallengeParameterValue(value)).toBe(true);
    },
  );

  it.each([
    ['a CR LF (header injection)', 'acme\r\nSet-Cookie: a=b'],
    ['a bare LF', 'a\nb'],
    ['a NUL', 'a\u0000b'],
    ['a tab', 'a\tb'],
    ['a DEL', 'a\u007fb'],
    ['a non-ASCII character', 'café'],
  ])('refuses a value with %s', (_, value) => {
    expect(isChallengeParameterValue(value)).toBe(false);
  });

  it.each([undefined, null, 1, ['a']])('refuses the non-string %p', (value) => {
    expect(isChallengeParameterValue(value)).toBe(false);
  });
});
