import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { findUnsafeJsonText, hasUnsafeCharacter } from './plain-text.js';

describe('hasUnsafeCharacter', () => {
  it.each(['\u0000', 'a\u0001b', '\u007f', 'x\u001b[31m', '\ud800', 'lone \udc00 low', 'end \ud83d'])(
    'refuses %j',
    (text) => {
      expect(hasUnsafeCharacter(text)).toBe(true);
    },
  );

  it.each(['', 'plain', 'tab\tline\nreturn\r', 'émoji 😀 and 中文', '\u00a0\u200b'])('accepts %j', (text) => {
    expect(hasUnsafeCharacter(text)).toBe(false);
  });

  it('accepts every string of Unicode scalar values without C0 controls (but tab, LF, CR) or DEL', () => {
    const safe = fc
      .string({ unit: 'grapheme' })
      // eslint-disable-next-line no-control-regex -- the controls the rule refuses
      .filter((text) => !/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/u.test(text));
    fc.assert(fc.property(safe, (text) => expect(hasUnsafeCharacter(text)).toBe(false)));
  });

  it('refuses any string with a NUL or a lone surrogate in it', () => {
    const bad = fc.constantFrom('\u0000', '\ud800', '\udfff');
    fc.assert(
      fc.property(fc.string(), bad, fc.string(), (before, character, after) => {
        // A high surrogate right before a low one would pair with it; keep the inserted one alone.
        fc.pre(!/[\ud800-\udbff]$/u.test(before) && !/^[\udc00-\udfff]/u.test(after));
        expect(hasUnsafeCharacter(`${before}${character}${after}`)).toBe(true);
      }),
    );
  });
});

describe('findUnsafeJsonText', () => {
  it('names the first string or key that holds an unsafe character', () => {
    expect(findUnsafeJsonText({ client_name: 'ok', contacts: ['a', 'b\u0000'] })).toBe('contacts[1]');
    expect(findUnsafeJsonText({ nested: { ['k\u0000']: 1 } })).toBe('a member name in nested');
    expect(findUnsafeJsonText({ ['\ud800']: 1 })).toBe('a member name');
    expect(
      findUnsafeJsonText({ client_name: 'ok', redirect_uris: ['https://a.example/cb'] }),
    ).toBeUndefined();
    expect(findUnsafeJsonText('\ud800')).toBe('(the body)');
  });
});
