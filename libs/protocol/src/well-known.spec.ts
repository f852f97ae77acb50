import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { OAuthError } from './oauth-error.js';
import {
  WELL_KNOWN_PATHS,
  authorizationServerMetadataUrls,
  protectedResourceMetadataUrls,
  sameIssuerIdentifier,
} from './well-known.js';

describe('protectedResourceMetadataUrls', () => {
  it.each<[string, string[]]>([
    [
      'https://mcp.example.com/public/mcp',
      [
        'https://mcp.example.com/.well-known/oauth-protected-resource/public/mcp',
        'https://mcp.example.com/.well-known/oauth-protected-resource',
      ],
    ],
    ['https://mcp.example.com', ['https://mcp.example.com/.well-known/oauth-protected-resource']],
    ['https://mcp.example.com/', ['https://mcp.example.com/.well-known/oauth-protected-resource']],
    ['HTTPS://MCP.example.com:443/', ['https://mcp.example.com/.well-known/oauth-protected-resource']],
    [
      'https://mcp.example.com:8443/mcp',
      [
        'https://mcp.example.com:8443/.well-known/oauth-protected-resource/mcp',
        'https://mcp.example.com:8443/.well-known/oauth-protected-resource',
      ],
    ],
    [
      'https://mcp.example.com/mcp/',
      [
        'https://mcp.example.com/.well-known/oauth-protected-resource/mcp/',
        'https://mcp.example.com/.well-known/oauth-protected-resource',
      ],
    ],
    [
      'https://mcp.example.com/mcp?tenant=a',
      [
        'https://mcp.example.com/.well-known/oauth-protected-resource/mcp?tenant=a',
        'https://mcp.example.com/.well-known/oauth-protected-resource',
      ],
    ],
    [
      'https://mcp.example.com/?tenant=a',
      [
        'https://mcp.example.com/.well-known/oauth-protected-resource?tenant=a',
        'https://mcp.example.com/.well-known/oauth-protected-resource',
      ],
    ],
    [
      'http://[::1]:3000/mcp',
      [
        'http://[::1]:3000/.well-known/oauth-protected-resource/mcp',
        'http://[::1]:3000/.well-known/oauth-protected-resource',
      ],
    ],
  ])('for %s tries %j in that order', (resource, urls) => {
    expect(protectedResourceMetadataUrls(resource)).toEqual(urls);
  });

  it.each(['https://mcp.example.com/mcp#x', 'mcp.example.com', 'https://user@mcp.example.com/mcp'])(
    'refuses the invalid resource %s with invalid_target',
    (resource) => {
      expect(() => protectedResourceMetadataUrls(resource)).toThrow(OAuthError);
      expect(() => protectedResourceMetadataUrls(resource)).toThrow(/resource/u);
    },
  );

  it('always ends with the root URL of the resource origin', () => {
    const segment = fc.stringMatching(/^[a-z0-9._~-]{1,8}$/u);
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 4 }), (segments) => {
        const resource = `https://mcp.example.com${segments.map((s) => `/${s}`).join('')}`;
        const urls = protectedResourceMetadataUrls(resource);
        expect(urls.at(-1)).toBe(`https://mcp.example.com${WELL_KNOWN_PATHS.protectedResource}`);
        expect(urls).toHaveLength(segments.length === 0 ? 1 : 2);
      }),
    );
  });
});

describe('authorizationServerMetadataUrls', () => {
  it.each<[string, boolean | undefined, string[]]>([
    [
      'https://auth.example.com/tenant1',
      undefined,
      [
        'https://auth.example.com/.well-known/oauth-authorization-server/tenant1',
        'https://auth.example.com/.well-known/openid-configuration/tenant1',
        'https://auth.example.com/tenant1/.well-known/openid-configuration',
      ],
    ],
    [
      'https://auth.example.com/tenant1',
      true,
      [
        'https://auth.example.com/.well-known/oauth-authorization-server/tenant1',
        'https://auth.example.com/.well-known/openid-configuration/tenant1',
        'https://auth.example.com/tenant1/.well-known/openid-configuration',
      ],
    ],
    [
      'https://auth.example.com/tenant1',
      false,
      ['https://auth.example.com/.well-known/oauth-authorization-server/tenant1'],
    ],
    [
      'https://auth.example.com',
      undefined,
      [
        'https://auth.example.com/.well-known/oauth-authorization-server',
        'https://auth.example.com/.well-known/openid-configuration',
      ],
    ],
    ['https://auth.example.com', false, ['https://auth.example.com/.well-known/oauth-authorization-server']],
    [
      'https://auth.example.com/',
      undefined,
      [
        'https://auth.example.com/.well-known/oauth-authorization-server',
        'https://auth.example.com/.well-known/openid-configuration',
      ],
    ],
    [
      'https://auth.example.com/tenant1/',
      undefined,
      [
        'https://auth.example.com/.well-known/oauth-authorization-server/tenant1',
        'https://auth.example.com/.well-known/openid-configuration/tenant1',
        'https://auth.example.com/tenant1/.well-known/openid-configuration',
      ],
    ],
    [
      'https://auth.example.com/realms/a/b',
      undefined,
      [
        'https://auth.example.com/.well-known/oauth-authorization-server/realms/a/b',
        'https://auth.example.com/.well-known/openid-configuration/realms/a/b',
        'https://auth.example.com/realms/a/b/.well-known/openid-configuration',
      ],
    ],
    [
      'http://localhost:4000',
      undefined,
      [
        'http://localhost:4000/.well-known/oauth-authorization-server',
        'http://localhost:4000/.well-known/openid-configuration',
      ],
    ],
  ])('for issuer %s (openIdConnect %s) tries %j in that order', (issuer, openIdConnect, urls) => {
    const options = openIdConnect === undefined ? undefined : { openIdConnect };
    expect(authorizationServerMetadataUrls(issuer, options)).toEqual(urls);
  });

  it('does not normalise the issuer, whose metadata must match it byte for byte', () => {
    expect(
      authorizationServerMetadataUrls('https://Auth.Example.com:443/Tenant%41', { openIdConnect: false }),
    ).toEqual(['https://Auth.Example.com:443/.well-known/oauth-authorization-server/Tenant%41']);
  });

  it.each([
    'auth.example.com',
    '/tenant1',
    'ftp://auth.example.com',
    'https://',
    'https:///tenant1',
    'https://user@auth.example.com',
    'https://auth.example.com?tenant=1',
    'https://auth.example.com/t#x',
    'https://auth.example.com/t#',
    'https://auth.example.com/ t',
    'https://auth.example.com/t\r\n',
  ])('refuses %j, which cannot be an issuer, with TypeError', (issuer) => {
    expect(() => authorizationServerMetadataUrls(issuer)).toThrow(TypeError);
  });

  it('puts the RFC 8414 URL first and builds every URL on the issuer origin', () => {
    const segment = fc.stringMatching(/^[a-zA-Z0-9._~-]{1,8}$/u);
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 3 }), fc.boolean(), (segments, openIdConnect) => {
        const path = segments.map((s) => `/${s}`).join('');
        const urls = authorizationServerMetadataUrls(`https://as.example.com${path}`, { openIdConnect });
        expect(urls[0]).toBe(`https://as.example.com${WELL_KNOWN_PATHS.authorizationServer}${path}`);
        expect(urls.every((url) => url.startsWith('https://as.example.com/'))).toBe(true);
        expect(urls).toHaveLength(openIdConnect ? (path === '' ? 2 : 3) : 1);
      }),
    );
  });
});

describe('sameIssuerIdentifier', () => {
  it.each([
    ['https://as.example', 'https://as.example'],
    ['https://as.example/', 'https://as.example'],
    ['https://as.example', 'https://as.example/'],
    ['http://127.0.0.1:4000/', 'http://127.0.0.1:4000'],
    ['https://as.example/t1', 'https://as.example/t1'],
  ])('treats %j and %j as one issuer', (named, published) => {
    expect(sameIssuerIdentifier(named, published)).toBe(true);
  });

  it.each([
    ['https://as.example/t1/', 'https://as.example/t1', 'a path with and without its terminating /'],
    ['https://AS.example/', 'https://as.example', 'host case'],
    ['HTTPS://as.example/', 'HTTPS://as.example', 'a scheme that is not written http or https'],
    ['https://as.example:443/', 'https://as.example', 'a default port'],
    ['https://as.example//', 'https://as.example/', 'two slashes'],
    ['https://as.example/?', 'https://as.example?', 'a query'],
    ['https://as.example/%2F', 'https://as.example/', 'percent-encoding'],
    ['https://attacker.example/', 'https://as.example', 'another host'],
  ])('keeps %j and %j apart (%s)', (named, published) => {
    expect(sameIssuerIdentifier(named, published)).toBe(false);
  });

  it('accepts only the root trailing-slash equivalence, symmetrically', () => {
    const host = fc.stringMatching(/^[a-z0-9-]{1,10}\.example$/u);
    const path = fc.stringMatching(/^(\/[a-z0-9]{1,5}){0,2}\/?$/u);
    fc.assert(
      fc.property(host, path, path, (h, a, b) => {
        const [named, published] = [`https://${h}${a}`, `https://${h}${b}`];
        const expected = named === published || ((a === '' || a === '/') && (b === '' || b === '/'));
        expect(sameIssuerIdentifier(named, published)).toBe(expected);
        expect(sameIssuerIdentifier(published, named)).toBe(expected);
      }),
    );
  });
});
