import { describe, expect, it } from '@jest/globals';
import { resolveResourceServerConfig, ResourceServerConfigError } from './resource-server.config.js';
import type { ResourceServerOptions } from './resource-server.options.js';

const BASE: ResourceServerOptions = {
  resource: 'https://mcp.example.com/mcp',
  authorizationServers: ['https://auth.example.com'],
};

function refusal(options: Partial<ResourceServerOptions>): string {
  try {
    resolveResourceServerConfig({ ...BASE, ...options });
  } catch (error) {
    expect(error).toBeInstanceOf(ResourceServerConfigError);
    return (error as Error).message;
  }
  throw new Error('the options were accepted');
}

describe('resolveResourceServerConfig', () => {
  it('canonicalises the resource and derives the path-inserted metadata URL from it', () => {
    const config = resolveResourceServerConfig({ ...BASE, resource: 'HTTPS://MCP.Example.com:443/mcp' });
    expect(config.resource).toBe('https://mcp.example.com/mcp');
    expect(config.metadataUrl).toBe('https://mcp.example.com/.well-known/oauth-protected-resource/mcp');
    expect(config.metadataPath).toBe('/.well-known/oauth-protected-resource/mcp');
  });

  it('serves the metadata of a path-less resource at the root well-known URL', () => {
    const config = resolveResourceServerConfig({ ...BASE, resource: 'https://mcp.example.com/' });
    expect(config.resource).toBe('https://mcp.example.com');
    expect(config.metadataPath).toBe('/.well-known/oauth-protected-resource');
  });

  it('applies safe defaults: latest revision, every asymmetric algorithm, 30 s skew, no introspection', () => {
    const config = resolveResourceServerConfig(BASE);
    expect(config.revision.id).toBe('2026-07-28');
    expect(config.tokens.mode).toBe('auto');
    expect(config.tokens.algorithms).toContain('ES256');
    expect(config.tokens.algorithms.some((alg) => alg === 'none' || alg.startsWith('HS'))).toBe(false);
    expect(config.tokens.clockSkewSeconds).toBe(30);
    expect(config.tokens.cacheTtlSeconds).toBe(30);
    expect(config.tokens.introspection).toBeUndefined();
    expect(config.scopesSupported).toEqual([]);
  });

  it('allows no browser origin but the resource’s own by default, and refuses an entry that is not an origin', () => {
    const config = resolveResourceServerConfig(BASE);
    expect(config.browserOrigins.grantsAny).toBe(false);
    expect(config.browserOrigins.allows('https://mcp.example.com')).toBe(true);
    expect(refusal({ browserOrigins: { origins: ['https://app.example.com/'] } })).toContain(
      'browserOrigins.origins: "https://app.example.com/" must be written as the browser sends it',
    );
  });

  it('refuses to boot without an authorization server', () => {
    expect(refusal({ authorizationServers: [] })).toContain('at least one issuer');
  });

  it('refuses an issuer that is plain http on a public host, or has a query', () => {
    expect(refusal({ authorizationServers: ['http://auth.example.com'] })).toContain('not an issuer');
    expect(refusal({ authorizationServers: ['https://auth.example.com?x=1'] })).toContain('not an issuer');
  });

  it('refuses a resource with a fragment, without a scheme, or plain http on a public host', () => {
    expect(refusal({ resource: 'https://mcp.example.com/mcp#x' })).toContain('resource');
    expect(refusal({ resource: 'mcp.example.com/mcp' })).toContain('resource');
    expect(refusal({ resource: 'http://mcp.example.com/mcp' })).toContain('https');
  });

  it('refuses a resource path a router would read as syntax', () => {
    expect(refusal({ resource: 'https://mcp.example.com/:tenant/mcp' })).toContain('routers');
  });

  it('refuses to publish offline_access or a malformed scope', () => {
    expect(refusal({ scopesSupported: ['notes:read', 'offline_access'] })).toContain('offline_access');
    expect(refusal({ scopesSupported: ['two words'] })).toContain('scope-token');
  });

  it('refuses none and every HS algorithm in the allow-list', () => {
    expect(refusal({ tokens: { algorithms: ['none'] } })).toContain('must not allow none');
    expect(refusal({ tokens: { algorithms: ['ES256', 'HS256'] } })).toContain('must not allow HS256');
    expect(refusal({ tokens: { algorithms: ['RSA-OAEP'] } })).toContain('not an asymmetric');
  });

  it('refuses introspection mode without the resource server’s client credentials', () => {
    expect(refusal({ tokens: { mode: 'introspection' } })).toContain('introspection');
    expect(
      refusal({
        tokens: { introspection: { clientId: 'rs', clientSecret: 's', issuer: 'https://other.example' } },
      }),
    ).toContain('one of authorizationServers');
  });

  it('keeps a token cache TTL from 0 (no cache) to one day, in whole seconds', () => {
    for (const cacheTtlSeconds of [0, 1, 86_400]) {
      expect(
        resolveResourceServerConfig({ ...BASE, tokens: { cacheTtlSeconds } }).tokens.cacheTtlSeconds,
      ).toBe(cacheTtlSeconds);
    }
    for (const cacheTtlSeconds of [-1, 1.5, 86_401, Number.NaN]) {
      expect(refusal({ tokens: { cacheTtlSeconds } })).toContain('tokens.cacheTtlSeconds');
    }
  });

  it('refuses an unknown revision', () => {
    expect(refusal({ revision: '2024-01-01' })).toContain('revision');
  });

  it('defaults the introspecting issuer to the first authorization server', () => {
    const config = resolveResourceServerConfig({
      ...BASE,
      tokens: { introspection: { clientId: 'rs', clientSecret: 's' } },
    });
    expect(config.tokens.introspection).toEqual({
      clientId: 'rs',
      clientSecret: 's',
      issuer: 'https://auth.example.com',
    });
  });
});
