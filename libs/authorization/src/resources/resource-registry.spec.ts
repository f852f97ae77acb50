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

  it('refuses a configuration with a non-canonical or repeated resource', () => {
    expect(() => new ResourceRegistry([{ ...notes, uri: 'HTTP://localhost:4100/mcp' }])).toThrow('canonical');
    expect(() => new ResourceRegistry([notes, notes])).toThrow('twice');
  });
});
