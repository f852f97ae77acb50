import { describe, expect, it } from '@jest/globals';
import { checkAudience } from './audience.check.js';
import { checkIssuer } from './issuer.check.js';
import { checkAlgorithm } from './jwt-algorithm.check.js';
import { checkJwtIdentifiers } from './jwt-identifiers.check.js';
import { checkKeyReference } from './jwt-key-reference.check.js';
import { checkAccessTokenType } from './jwt-type.check.js';
import { checkLifetime } from './lifetime.check.js';
import { checkSubjectAndClient } from './subject-and-client.check.js';
import type { TokenCheck, TokenCheckContext, TokenFields } from './token-check.js';

const NOW = 1_800_000_000;
const CONTEXT: TokenCheckContext = {
  resource: 'https://mcp.example.com/mcp',
  issuers: ['https://auth.example.com'],
  algorithms: ['ES256', 'RS256'],
  clockSkewSeconds: 30,
  now: NOW,
};

function verdict(check: TokenCheck, fields: TokenFields): string {
  try {
    check(fields, CONTEXT);
    return 'accepted';
  } catch (error) {
    return (error as { code?: string }).code ?? 'threw something else';
  }
}

describe('the token checks', () => {
  it.each([
    ['ES256', 'accepted'],
    ['RS256', 'accepted'],
    ['none', 'invalid_token'],
    ['HS256', 'invalid_token'],
    ['PS256', 'invalid_token'],
    [undefined, 'invalid_token'],
  ])('checkAlgorithm: alg %s is %s against an ES256/RS256 allow-list', (alg, expected) => {
    expect(verdict(checkAlgorithm, { alg })).toBe(expected);
  });

  it.each([
    ['at+jwt', 'accepted'],
    ['AT+JWT', 'accepted'],
    ['application/at+jwt', 'accepted'],
    ['JWT', 'invalid_token'],
    ['id_token+jwt', 'invalid_token'],
    [undefined, 'invalid_token'],
  ])('checkAccessTokenType: typ %s is %s', (typ, expected) => {
    expect(verdict(checkAccessTokenType, { typ })).toBe(expected);
  });

  it.each<[string, TokenFields, string]>([
    ['a kid', { alg: 'ES256', kid: 'k1' }, 'accepted'],
    ['no kid', { alg: 'ES256' }, 'accepted'],
    [
      'an embedded jwk',
      { alg: 'ES256', kid: 'k1', jwk: { kty: 'EC', crv: 'P-256', x: 'x', y: 'y' } },
      'invalid_token',
    ],
    ['a jku', { alg: 'ES256', kid: 'k1', jku: 'https://evil.example/jwks' }, 'invalid_token'],
    ['an x5u', { alg: 'ES256', x5u: 'https://evil.example/cert.pem' }, 'invalid_token'],
    ['an x5c', { alg: 'ES256', x5c: ['MIIB'] }, 'invalid_token'],
    ['a numeric kid', { alg: 'ES256', kid: 123 }, 'invalid_token'],
  ])('checkKeyReference: a header with %s is %s', (_name, header, expected) => {
    expect(verdict(checkKeyReference, header)).toBe(expected);
  });

  it.each([
    ['https://auth.example.com', 'accepted'],
    ['https://auth.example.com/', 'invalid_token'],
    ['https://evil.example', 'invalid_token'],
    [undefined, 'invalid_token'],
  ])('checkIssuer: iss %s is %s (exact string comparison)', (iss, expected) => {
    expect(verdict(checkIssuer, { iss })).toBe(expected);
  });

  it.each<[unknown, string]>([
    ['https://mcp.example.com/mcp', 'accepted'],
    [['https://other.example', 'https://mcp.example.com/mcp'], 'accepted'],
    ['https://mcp.example.com/mcp/', 'invalid_token'],
    ['https://mcp.example.com', 'invalid_token'],
    ['HTTPS://MCP.EXAMPLE.COM/mcp', 'invalid_token'],
    [[], 'invalid_token'],
    [[42], 'invalid_token'],
    [undefined, 'invalid_token'],
  ])('checkAudience: aud %j is %s', (aud, expected) => {
    expect(verdict(checkAudience, { aud })).toBe(expected);
  });

  it.each<[string, TokenFields, string]>([
    ['a future exp', { exp: NOW + 60 }, 'accepted'],
    ['an exp within the skew', { exp: NOW - 10 }, 'accepted'],
    ['an exp beyond the skew', { exp: NOW - 31 }, 'invalid_token'],
    ['no exp', {}, 'invalid_token'],
    ['a string exp', { exp: String(NOW + 60) }, 'invalid_token'],
    ['an nbf within the skew', { exp: NOW + 60, nbf: NOW + 20 }, 'accepted'],
    ['an nbf in the future', { exp: NOW + 600, nbf: NOW + 120 }, 'invalid_token'],
    ['an iat in the future', { exp: NOW + 600, iat: NOW + 120 }, 'invalid_token'],
  ])('checkLifetime: %s is %s', (_name, claims, expected) => {
    expect(verdict(checkLifetime, claims)).toBe(expected);
  });

  it.each<[string, TokenFields, string]>([
    ['sub, client_id and a scope', { sub: 'alice', client_id: 'app', scope: 'a b' }, 'accepted'],
    ['no scope at all', { sub: 'alice', client_id: 'app' }, 'accepted'],
    ['no sub', { client_id: 'app' }, 'invalid_token'],
    ['an empty sub', { sub: '', client_id: 'app' }, 'invalid_token'],
    ['no client_id', { sub: 'alice' }, 'invalid_token'],
    ['a doubled space in scope', { sub: 'alice', client_id: 'app', scope: 'a  b' }, 'invalid_token'],
    ['a scope array', { sub: 'alice', client_id: 'app', scope: ['a'] }, 'invalid_token'],
  ])('checkSubjectAndClient: %s is %s', (_name, claims, expected) => {
    expect(verdict(checkSubjectAndClient, claims)).toBe(expected);
  });

  it.each<[string, TokenFields, string]>([
    ['iat and jti', { iat: NOW, jti: 'j1' }, 'accepted'],
    ['no iat', { jti: 'j1' }, 'invalid_token'],
    ['no jti', { iat: NOW }, 'invalid_token'],
  ])('checkJwtIdentifiers: %s is %s', (_name, claims, expected) => {
    expect(verdict(checkJwtIdentifiers, claims)).toBe(expected);
  });
});
