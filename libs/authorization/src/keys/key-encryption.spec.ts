import { randomBytes } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { open, parseKeyEncryptionKey, seal } from './key-encryption.js';

describe('key encryption', () => {
  const key = randomBytes(32);

  it('opens what it sealed, under the same key and context', () => {
    const sealed = seal('{"d":"secret"}', key, 'kid-1');
    expect(sealed).toMatch(/^v1\.[\w-]+\.[\w-]+$/);
    expect(sealed).not.toContain('secret');
    expect(open(sealed, key, 'kid-1')).toBe('{"d":"secret"}');
  });

  it('refuses another key, another context, or a changed byte', () => {
    const sealed = seal('payload', key, 'kid-1');
    expect(() => open(sealed, randomBytes(32), 'kid-1')).toThrow();
    expect(() => open(sealed, key, 'kid-2')).toThrow();
    // One character changed for sure (the second to last: fully significant in base64url, unlike the last).
    const at = sealed.length - 2;
    const tampered = `${sealed.slice(0, at)}${sealed[at] === 'A' ? 'B' : 'A'}${sealed.slice(at + 1)}`;
    expect(tampered).not.toBe(sealed);
    expect(() => open(tampered, key, 'kid-1')).toThrow();
    expect(() => open('garbage', key, 'kid-1')).toThrow('not a sealed value');
  });

  it('parses a 32-byte key written as hex or base64, and nothing else', () => {
    expect(parseKeyEncryptionKey(key.toString('hex'))).toEqual(new Uint8Array(key));
    expect(Buffer.from(parseKeyEncryptionKey(key.toString('base64'))!)).toEqual(key);
    expect(Buffer.from(parseKeyEncryptionKey(key.toString('base64url'))!)).toEqual(key);
    expect(parseKeyEncryptionKey('too short')).toBeUndefined();
    expect(parseKeyEncryptionKey(randomBytes(16).toString('hex'))).toBeUndefined();
  });
});
