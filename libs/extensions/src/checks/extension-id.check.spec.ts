import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { isExtensionId } from './extension-id.check.js';

const label63 = 'a'.repeat(63);

describe('isExtensionId', () => {
  it.each([
    'io.modelcontextprotocol/oauth-client-credentials',
    'io.modelcontextprotocol/enterprise-managed-authorization',
    'com.example/my-extension',
    'com.example.auth/x',
    'com.my-company/v2',
    'de.1und1/mail',
    `com.${label63}/name`,
    `com.example/${'n'.repeat(64)}`,
  ])('accepts %j', (id) => {
    expect(isExtensionId(id)).toBe(true);
  });

  it.each([
    ['no vendor prefix', 'oauth-client-credentials'],
    ['a one-label prefix', 'example/ext'],
    ['no name', 'com.example/'],
    ['no slash', 'com.example'],
    ['two slashes', 'com.example/a/b'],
    ['an uppercase prefix', 'Com.Example/ext'],
    ['an uppercase name', 'com.example/Ext'],
    ['an empty label', 'com..example/ext'],
    ['a label starting with a hyphen', 'com.-example/ext'],
    ['a label ending with a hyphen', 'com.example-/ext'],
    ['a label of 64 characters', `com.${label63}a/ext`],
    ['an all-numeric top-level domain (an IP address)', '127.0.0.1/ext'],
    ['a name with a double hyphen', 'com.example/a--b'],
    ['a name ending with a hyphen', 'com.example/ext-'],
    ['a name with an underscore', 'com.example/my_ext'],
    ['a name of 65 characters', `com.example/${'n'.repeat(65)}`],
    ['a prefix of 254 characters', `${Array.from({ length: 4 }, () => label63).join('.')}.ab/ext`],
    ['surrounding whitespace', ' com.example/ext'],
    ['a trailing newline', 'com.example/ext\n'],
    ['a URL', 'https://example.com/ext'],
    ['the empty string', ''],
  ])('refuses %s (%j)', (_, id) => {
    expect(isExtensionId(id)).toBe(false);
  });

  it.each([undefined, null, 42, {}, ['com.example/ext']])('refuses the non-string %p', (id) => {
    expect(isExtensionId(id)).toBe(false);
  });

  it('accepts every id made of valid labels and a valid name, and no id with an uppercase letter', () => {
    const label = fc.stringMatching(/^[a-z][a-z0-9]{0,5}(?:-[a-z0-9]{1,4})?$/);
    const name = fc.stringMatching(/^[a-z0-9]{1,8}(?:-[a-z0-9]{1,8}){0,3}$/);
    fc.assert(
      fc.property(fc.array(label, { minLength: 2, maxLength: 5 }), name, (labels, extensionName) => {
        const id = `${labels.join('.')}/${extensionName}`;
        expect(isExtensionId(id)).toBe(true);
        expect(isExtensionId(id.toUpperCase())).toBe(false);
      }),
    );
  });
});
