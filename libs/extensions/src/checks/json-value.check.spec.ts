import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { runInNewContext } from 'node:vm';
import { isJsonValue, isPlainObject } from './json-value.check.js';

describe('isJsonValue', () => {
  it('accepts every value JSON.parse can produce', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(isJsonValue(value)).toBe(true);
      }),
    );
  });

  it.each<[string, unknown]>([
    ['NaN', Number.NaN],
    ['Infinity', -Infinity],
    ['undefined', undefined],
    ['a function', () => 1],
    ['a symbol', Symbol('s')],
    ['a bigint', 10n],
    ['a Date', new Date(0)],
    ['a Map', new Map()],
    ['a URL', new URL('https://example.com')],
    ['a class instance', new (class Point {})()],
    ['an array with a hole', new Array<number>(2)],
    ['an array holding undefined', [undefined]],
    ['an object holding a function', { f: () => 1 }],
    ['an object with a symbol key', { [Symbol('s')]: 1 }],
    ['a nested NaN', { a: [{ b: Number.NaN }] }],
  ])('refuses %s', (_, value) => {
    expect(isJsonValue(value)).toBe(false);
  });

  it('refuses a cycle but accepts one object referenced twice', () => {
    const shared = { x: 1 };
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    expect(isJsonValue(cyclic)).toBe(false);
    expect(isJsonValue({ a: shared, b: [shared] })).toBe(true);
  });
});

describe('isPlainObject', () => {
  it('accepts literals, null-prototype objects and objects from another realm', () => {
    expect(isPlainObject({ a: 1 })).toBe(true);
    expect(isPlainObject(Object.create(null))).toBe(true);
    expect(isPlainObject(runInNewContext('({ a: 1 })'))).toBe(true);
  });

  it('refuses arrays, class instances and primitives', () => {
    for (const value of [[], new Date(0), new (class Point {})(), 'a', 1, null, undefined]) {
      expect(isPlainObject(value)).toBe(false);
    }
  });
});
