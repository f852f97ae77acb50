import { describe, expect, it } from '@jest/globals';
import { isGrantTypeName } from './grant-type.check.js';

describe('isGrantTypeName', () => {
  it.each([
    'client_credentials',
    'urn:ietf:params:oauth:grant-type:jwt-bearer',
    'urn:ietf:params:oauth:grant-type:token-exchange',
    'urn:ietf:params:oauth:grant-type:device_code',
    'https://grants.example.com/ticket',
    'vendor.grant-1',
  ])('accepts %j, a grant-name or an absolute URI', (name) => {
    expect(isGrantTypeName(name)).toBe(true);
  });

  it.each([
    ['the empty string', ''],
    ['a space', 'client credentials'],
    ['a relative reference', '/grants/ticket'],
    ['a URI with a space', 'urn:example: ticket'],
    ['a URI with a CR LF', 'urn:example:ticket\r\nx'],
    ['a URI with a tab', 'https://example.com/\tgrant'],
    ['a scheme starting with a digit', '1urn:example'],
    ['a non-ASCII grant-name', 'grånt'],
  ])('refuses %s (%j)', (_, name) => {
    expect(isGrantTypeName(name)).toBe(false);
  });
});
