import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { isLoopbackHost, issuerIdentifierProblem } from './loopback.js';

describe('isLoopbackHost, the one loopback rule', () => {
  it('takes every address of 127.0.0.0/8 and nothing outside it', () => {
    const octet = fc.integer({ min: 0, max: 255 });
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 255 }), octet, octet, octet, (first, b, c, d) => {
        expect(isLoopbackHost(`${first}.${b}.${c}.${d}`)).toBe(first === 127);
      }),
    );
  });

  it.each([
    ['localhost', true],
    ['LocalHost', true],
    ['[::1]', true],
    ['::1', true],
    ['foo.localhost', false],
    ['localhost.example.com', false],
    ['[0:0:0:0:0:0:0:1]', false],
    ['127.1', false],
    ['', false],
  ])('%j: %s', (host, expected) => {
    expect(isLoopbackHost(host)).toBe(expected);
  });
});

describe('issuerIdentifierProblem, the one rule for configured issuers', () => {
  it.each([
    'https://as.example',
    'https://as.example/tenant',
    'http://localhost:4000',
    'http://127.0.0.2:4000',
  ])('accepts %s', (issuer) => {
    expect(issuerIdentifierProblem(issuer)).toBeUndefined();
  });

  it.each([
    ['http://localhost:4000/', 'must not end with /'],
    ['https://as.example/', 'must not end with /'],
    ['http://as.example', 'must be https (http only on a loopback host)'],
    ['https://as.example?x=1', 'must not have a query, fragment or userinfo'],
    ['https://as.example#', 'must not have a query, fragment or userinfo'],
    ['https://user@as.example', 'must not have a query, fragment or userinfo'],
    ['as.example', 'must be an absolute URL'],
    ['https://as.example\\x', 'must be written with URI characters only (RFC 3986)'],
    ['https://as.exa\tmple', 'must be written with URI characters only (RFC 3986)'],
    ['https://as.example/ä', 'must be written with URI characters only (RFC 3986)'],
  ])('refuses %s: %s', (issuer, problem) => {
    expect(issuerIdentifierProblem(issuer)).toBe(problem);
  });

  it("keeps one terminating slash of someone else's issuer when asked to, never two, and nothing else changes", () => {
    expect(
      issuerIdentifierProblem('https://tenant.auth0.example/', { terminatingSlash: true }),
    ).toBeUndefined();
    expect(issuerIdentifierProblem('https://as.example/t/', { terminatingSlash: true })).toBeUndefined();
    expect(issuerIdentifierProblem('https://as.example//', { terminatingSlash: true })).toBe(
      'must not end with /',
    );
    expect(issuerIdentifierProblem('https://as.example/?a', { terminatingSlash: true })).toBe(
      'must not have a query, fragment or userinfo',
    );
    expect(issuerIdentifierProblem('http://as.example/', { terminatingSlash: true })).toBe(
      'must be https (http only on a loopback host)',
    );
  });
});
