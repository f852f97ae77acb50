import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { OAuthError } from './oauth-error.js';
import {
  expandScopes,
  formatScope,
  isScopeToken,
  missingScopes,
  parseScope,
  scopesSatisfy,
  unionScopes,
  type ScopeHierarchy,
} from './scopes.js';

function expectInvalidScope(fn: () => unknown): void {
  let caught: unknown;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(OAuthError);
  expect((caught as OAuthError).code).toBe('invalid_scope');
}

describe('parseScope', () => {
  it.each<[string | null | undefined, string[]]>([
    [undefined, []],
    [null, []],
    ['', []],
    ['files:read', ['files:read']],
    ['files:read files:write', ['files:read', 'files:write']],
    ['b a', ['b', 'a']],
    ['a b a b c', ['a', 'b', 'c']],
    ['A a', ['A', 'a']],
    ['openid offline_access', ['openid', 'offline_access']],
    ['!#$%&[]^`{|}~', ['!#$%&[]^`{|}~']],
    ['https://mcp.example.com/files.read', ['https://mcp.example.com/files.read']],
  ])('parses %j as %j', (value, scopes) => {
    expect(parseScope(value)).toEqual(scopes);
  });

  it.each([
    ['a  b', 'a doubled space'],
    [' a', 'a leading space'],
    ['a ', 'a trailing space'],
    [' ', 'a lone space'],
    ['a\tb', 'a tab'],
    ['a\nb', 'a line feed'],
    ['a\r\nb', 'CR LF'],
    ['a"b', 'a double quote'],
    ['a\\b', 'a backslash'],
    ['a\u0000', 'NUL'],
    ['a\u007f', 'DEL'],
    ['caf\u00e9', 'non-ASCII'],
    ['a\u00a0b', 'a no-break space'],
  ])('refuses %j (%s) with invalid_scope', (value) => {
    expectInvalidScope(() => parseScope(value));
  });
});

describe('formatScope', () => {
  it.each<[Iterable<string>, string]>([
    [[], ''],
    [['files:read'], 'files:read'],
    [['b', 'a', 'b'], 'b a'],
    [new Set(['x', 'y']), 'x y'],
  ])('writes %j as %j', (scopes, value) => {
    expect(formatScope(scopes)).toBe(value);
  });

  it.each([[['a b']], [['']], [['a"b']], [['ok', 'a\r\nb']]])(
    'refuses %j, which is not a list of scope-tokens, with invalid_scope',
    (scopes) => {
      expectInvalidScope(() => formatScope(scopes));
    },
  );
});

describe('isScopeToken', () => {
  it.each<[string, boolean]>([
    ['files:read', true],
    ['!', true],
    ['', false],
    ['a b', false],
    ['"', false],
    ['\\', false],
  ])('says %j is a scope-token: %s', (value, expected) => {
    expect(isScopeToken(value)).toBe(expected);
  });
});

describe('scope sufficiency', () => {
  const hierarchy: ScopeHierarchy = {
    admin: ['files:write', 'users:manage'],
    'files:write': ['files:read'],
    'files:read': ['files:list'],
    loop: ['around'],
    around: ['loop', 'files:list'],
  };

  it.each<[string, string | string[], string | string[], ScopeHierarchy | undefined, string[]]>([
    ['an exact grant', ['files:read'], ['files:read'], undefined, []],
    ['nothing required', [], [], undefined, []],
    ['nothing required of an empty grant', '', 'files:read files:read', undefined, ['files:read']],
    ['a missing scope', 'files:read', ['files:read', 'files:write'], undefined, ['files:write']],
    ['scopes in the order required, each once', [], 'c a c b', undefined, ['c', 'a', 'b']],
    ['case-sensitive scopes', ['Files:Read'], ['files:read'], undefined, ['files:read']],
    ['a broad scope implying a narrower one', ['files:write'], ['files:read'], hierarchy, []],
    ['implication through three levels', ['admin'], ['files:list', 'users:manage'], hierarchy, []],
    ['no implication upward', ['files:read'], ['files:write'], hierarchy, ['files:write']],
    ['no implication without a hierarchy', ['admin'], ['files:read'], undefined, ['files:read']],
    ['a cycle in the hierarchy', ['loop'], ['around', 'files:list'], hierarchy, []],
    ['a cycle that does not reach the scope', ['loop'], ['files:read'], hierarchy, ['files:read']],
    ['scopes named like Object members', ['constructor'], ['toString'], {}, ['toString']],
  ])('reports %s', (_name, granted, required, h, missing) => {
    expect(missingScopes(granted, required, h)).toEqual(missing);
    expect(scopesSatisfy(granted, required, h)).toBe(missing.length === 0);
  });

  it('reads a scope string as scope-tokens, not as characters', () => {
    expect(scopesSatisfy('files:read files:write', 'files:write')).toBe(true);
    expect(scopesSatisfy('files:read', 'f')).toBe(false);
  });

  it('refuses a malformed scope value with invalid_scope', () => {
    expectInvalidScope(() => scopesSatisfy('a  b', ['a']));
    expectInvalidScope(() => missingScopes(['a'], ['b c']));
  });

  it('expands granted scopes through the hierarchy, breadth-first', () => {
    expect(expandScopes('admin', hierarchy)).toEqual([
      'admin',
      'files:write',
      'users:manage',
      'files:read',
      'files:list',
    ]);
    expect(expandScopes(['loop'], hierarchy)).toEqual(['loop', 'around', 'files:list']);
  });
});

describe('unionScopes', () => {
  it('merges scope strings, lists and sets, each scope once, in first-seen order', () => {
    expect(unionScopes('a b', ['b', 'c'], null, undefined, new Set(['d', 'a']))).toEqual([
      'a',
      'b',
      'c',
      'd',
    ]);
  });

  it('gives the step-up scope set: requested plus challenged', () => {
    expect(unionScopes('files:read', 'files:read files:write')).toEqual(['files:read', 'files:write']);
  });

  it('is empty for no input', () => {
    expect(unionScopes()).toEqual([]);
  });
});

describe('scope properties', () => {
  const scopeToken = fc.string({
    unit: fc
      .integer({ min: 0x21, max: 0x7e })
      .filter((code) => code !== 0x22 && code !== 0x5c)
      .map((code) => String.fromCharCode(code)),
    minLength: 1,
    maxLength: 10,
  });
  const scopeList = fc.array(scopeToken, { maxLength: 8 });
  const sorted = (scopes: string[]): string[] => [...scopes].sort();

  it('union is commutative', () => {
    fc.assert(
      fc.property(scopeList, scopeList, (a, b) => {
        expect(sorted(unionScopes(a, b))).toEqual(sorted(unionScopes(b, a)));
      }),
    );
  });

  it('union is associative, idempotent, and covers each input', () => {
    fc.assert(
      fc.property(scopeList, scopeList, scopeList, (a, b, c) => {
        expect(unionScopes(unionScopes(a, b), c)).toEqual(unionScopes(a, unionScopes(b, c)));
        expect(unionScopes(a, a)).toEqual(unionScopes(a));
        const union = unionScopes(a, b, c);
        expect(new Set(union).size).toBe(union.length);
        for (const input of [a, b, c]) expect(scopesSatisfy(union, input)).toBe(true);
      }),
    );
  });

  it('format then parse gives the de-duplicated list', () => {
    fc.assert(
      fc.property(scopeList, (scopes) => {
        expect(parseScope(formatScope(scopes))).toEqual([...new Set(scopes)]);
      }),
    );
  });

  // A random hierarchy over a small universe, so edges chain and cycle often.
  const universe = ['a', 'b', 'c', 'd', 'e', 'f'];
  const node = fc.constantFrom(...universe);
  const hierarchyArb = fc.array(fc.tuple(node, node), { maxLength: 12 }).map((edges): ScopeHierarchy => {
    const h: Record<string, string[]> = {};
    for (const [from, to] of edges) (h[from] ??= []).push(to);
    return h;
  });

  /** Reachability by Floyd-Warshall: an independent oracle for the closure. */
  function reachable(h: ScopeHierarchy): (from: string, to: string) => boolean {
    const reach = new Map(universe.map((x) => [x, new Set([x, ...(h[x] ?? [])])]));
    for (const k of universe) {
      for (const i of universe) {
        if (reach.get(i)?.has(k)) for (const j of reach.get(k) ?? []) reach.get(i)?.add(j);
      }
    }
    return (from, to) => reach.get(from)?.has(to) ?? false;
  }

  it('hierarchy is transitive: a satisfies c whenever a satisfies b and b satisfies c', () => {
    fc.assert(
      fc.property(hierarchyArb, node, node, node, (h, a, b, c) => {
        if (scopesSatisfy([a], [b], h) && scopesSatisfy([b], [c], h)) {
          expect(scopesSatisfy([a], [c], h)).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('a scope satisfies exactly the scopes reachable from it in the hierarchy', () => {
    fc.assert(
      fc.property(hierarchyArb, node, node, (h, from, to) => {
        expect(scopesSatisfy([from], [to], h)).toBe(reachable(h)(from, to));
      }),
      { numRuns: 500 },
    );
  });
});
