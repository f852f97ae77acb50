import { describe, expect, it } from '@jest/globals';
import { ResourceRegistry } from './resource-registry.js';

const notes = {
  uri: 'http://localhost:4100/mcp',
  scopesSupported: ['notes:read', 'notes:write'],
  scopeHierarchy: { notes: ['notes:read', 'notes:write'] },
};

describe('ResourceRegistry', () => {
  it('picks the single resource when none is named, and refuses to guess among several', () => {
    expect(new ResourceRegistry([notes]).resolve([]).uri).toBe(notes.uri);
    const two = new ResourceRegistry([notes, { uri: 'https://files.example', scopesSupported: ['files'] }]);
    expect(() => two.resolve([])).toThrow('resource is required');
  });

  it('matches the canonical form and refuses unknown, fragment and multiple resources', () => {
    const registry = new ResourceRegistry([notes]);
    expect(registry.resolve(['HTTP://LOCALHOST:4100/mcp']).uri).toBe(notes.uri);
    expect(() => registry.resolve(['http://localhost:4100/mcp/'])).toThrow('unknown resource');
    expect(() => registry.resolve(['http://localhost:4100/mcp#a'])).toThrow('fragment');
    expect(() => registry.resolve([notes.uri, notes.uri])).toThrow('only one resource');
  });

  it('accepts the resource scopes, broader scopes of its hierarchy, and the server scopes', () => {
    const registry = new ResourceRegistry([notes]);
    const resource = registry.resolve([]);
    expect(registry.requestedScopes(resource, undefined)).toEqual(['notes:read', 'notes:write']);
    expect(registry.requestedScopes(resource, ['notes', 'openid', 'offline_access'])).toEqual([
      'notes',
      'openid',
      'offline_access',
    ]);
    expect(() => registry.requestedScopes(resource, ['files'])).toThrow(
      'scope not offered for this resource: files',
    );
  });

  it("accepts ChatGPT's OpenID Connect scopes beside the resource's and still refuses the ones nobody offers", () => {
    const registry = new ResourceRegistry([notes]);
    const resource = registry.resolve([]);
    expect(
      registry.requestedScopes(resource, ['notes:read', 'openid', 'email', 'offline_access', 'profile']),
    ).toEqual(['notes:read', 'openid', 'email', 'offline_access', 'profile']);
    expect(() => registry.requestedScopes(resource, ['openid', 'address', 'phone'])).toThrow(
      'scope not offered for this resource: address phone',
    );
  });

  it('keeps profile and email out of an access token', () => {
    const registry = new ResourceRegistry([notes]);
    const granted = ['notes:read', 'openid', 'profile', 'email', 'offline_access'];
    expect(registry.accessTokenScopes(granted)).toEqual(['notes:read', 'openid', 'offline_access']);
  });

  it('refuses a configuration with a non-canonical or repeated resource', () => {
    expect(() => new ResourceRegistry([{ ...notes, uri: 'HTTP://localhost:4100/mcp' }])).toThrow('canonical');
    expect(() => new ResourceRegistry([notes, notes])).toThrow('twice');
  });

  it('refuses a resource that defines a scope named like an OpenID Connect claim scope', () => {
    const mail = { uri: 'https://mail.example/mcp', scopesSupported: ['email', 'mail:send'] };
    expect(() => new ResourceRegistry([notes, mail])).toThrow(
      "resource https://mail.example/mcp defines the scope email, which is this server's OpenID Connect scope",
    );
    const broader = {
      uri: 'https://mail.example/mcp',
      scopesSupported: ['mail:read'],
      scopeHierarchy: { profile: ['mail:read'] },
    };
    expect(() => new ResourceRegistry([broader])).toThrow('defines the scope profile');
    const implied = { ...broader, scopeHierarchy: { mail: ['mail:read', 'email'] } };
    expect(() => new ResourceRegistry([implied])).toThrow('defines the scope email');
  });
});
