import { describe, expect, it } from '@jest/globals';
import { isExtensionModuleSpecifier, readExtensionNames } from './extension-names.js';

describe('readExtensionNames', () => {
  it('reads comma-separated names, trimmed, each once, in order; blank or unset is none', () => {
    expect(readExtensionNames(' b, a ,b,, ', ['a', 'b'])).toEqual({ names: ['b', 'a'], modules: [] });
    expect(readExtensionNames('', ['a'])).toEqual({ names: [], modules: [] });
    expect(readExtensionNames(undefined, [])).toEqual({ names: [], modules: [] });
  });

  it('takes a name outside the catalogue spelt as a module specifier as a module to load, in order', () => {
    expect(readExtensionNames('a,@acme/portcullis-tenant,./local.js,telepathy', ['a'])).toEqual({
      names: ['a', '@acme/portcullis-tenant', './local.js', 'telepathy'],
      modules: ['@acme/portcullis-tenant', './local.js', 'telepathy'],
    });
  });

  it('names every name that is neither, and the known ones, sorted, in one line', () => {
    expect(readExtensionNames('Client-Credentials,a,tele pathy', ['b', 'a']).problem).toBe(
      'names "Client-Credentials", "tele pathy", which are neither built-in extensions (known: a, b) nor module specifiers (a package name, a ./relative or /absolute path)',
    );
    expect(readExtensionNames('X', []).problem).toBe(
      'names "X", which is neither a built-in extension (known: none) nor a module specifier (a package name, a ./relative or /absolute path)',
    );
  });
});

describe('isExtensionModuleSpecifier', () => {
  it.each([
    '@acme/portcullis-tenant',
    'acme-tenant',
    'acme-tenant/extension.js',
    '@acme/tenant/sub/path',
    './tenant.js',
    '../extensions/tenant.mjs',
    '/opt/extensions/tenant.js',
    'file:///opt/extensions/tenant.js',
  ])('accepts %s', (name) => {
    expect(isExtensionModuleSpecifier(name)).toBe(true);
  });

  it.each([
    'Acme',
    '@acme',
    '@acme/',
    '.hidden',
    '_private',
    'tenant extension',
    'C:\\ext\\tenant.js',
    'http://x/y.js',
    // A package name whose subpath would leave the package (and EXTENSIONS_DIR).
    'acme/../../../outside/evil.js',
    'pat/../../../../outside/evil',
    '@acme/tenant/./x',
    '@acme/tenant/..',
    'acme/%2e%2e/evil',
    'acme//x',
  ])('refuses %s', (name) => {
    expect(isExtensionModuleSpecifier(name)).toBe(false);
  });
});
