import { describe, expect, it } from '@jest/globals';
import { readExtensionNames } from './extension-names.js';

describe('readExtensionNames', () => {
  it('reads comma-separated names, trimmed, each once, in order; blank or unset is none', () => {
    expect(readExtensionNames(' b, a ,b,, ', ['a', 'b'])).toEqual({ names: ['b', 'a'] });
    expect(readExtensionNames('', ['a'])).toEqual({ names: [] });
    expect(readExtensionNames(undefined, [])).toEqual({ names: [] });
  });

  it('names every unknown name and the known ones, sorted, in one line', () => {
    expect(readExtensionNames('x,a,y', ['b', 'a']).problem).toBe(
      'names unknown extensions x, y (known: a, b)',
    );
    expect(readExtensionNames('x', []).problem).toBe('names unknown extension x (known: none)');
  });
});
