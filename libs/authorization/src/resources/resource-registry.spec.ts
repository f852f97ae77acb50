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

  it('keeps profile and email out of an access token for a resource that does not define them', () => {
    const mail = { uri: 'https://mail.example/mcp', scopesSupported: ['email', 'mail:send'] };
    const registry = new ResourceRegistry([notes, mail]);
    const granted = ['notes:read', 'openid', 'profile', 'email', 'offline_access'];
    expect(registry.accessTokenScopes(notes.uri, granted)).toEqual([
      'notes:read',
      'openid',
      'offline_access',
    ]);
    // A resource's own scope of the same name is a permission at that resource: it stays.
    expect(registry.accessTokenScopes(mail.uri, ['email', 'profile', 'openid'])).toEqual(['email', 'openid']);
  });

  it('refuses a configuration with a non-canonical or repeated resource', () => {
    expect(() => new ResourceRegistry([{ ...notes, uri: 'HTTP://localhost:4100/mcp' }])).toThrow('canonical');
    expect(() => new ResourceRegistry([notes, notes])).toThrow('twice');
  });
});
