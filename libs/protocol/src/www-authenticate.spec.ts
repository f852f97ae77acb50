import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { formatWwwAuthenticate, parseWwwAuthenticate, type Challenge } from './www-authenticate.js';

const PRM = 'https://mcp.example.com/.well-known/oauth-protected-resource';

describe('parseWwwAuthenticate', () => {
  it.each<[string, string, Challenge[]]>([
    [
      'two quoted parameters',
      'Bearer realm="a", scope="b"',
      [{ scheme: 'bearer', params: { realm: 'a', scope: 'b' } }],
    ],
    [
      'escaped quotes and backslashes in quoted strings',
      'Bearer realm="a \\"quoted\\" \\\\ back", scope="b\\c"',
      [{ scheme: 'bearer', params: { realm: 'a "quoted" \\ back', scope: 'bc' } }],
    ],
    [
      'the RFC 9728 401 challenge',
      `Bearer resource_metadata="${PRM}", scope="files:read files:write"`,
      [{ scheme: 'bearer', params: { resource_metadata: PRM, scope: 'files:read files:write' } }],
    ],
    [
      'the insufficient_scope challenge of MCP 2026-07-28 "Runtime Insufficient Scope Errors"',
      `Bearer error="insufficient_scope", scope="files:write", resource_metadata="${PRM}", error_description="Additional file write permission required"`,
      [
        {
          scheme: 'bearer',
          params: {
            error: 'insufficient_scope',
            scope: 'files:write',
            resource_metadata: PRM,
            error_description: 'Additional file write permission required',
          },
        },
      ],
    ],
    [
      'the RFC 6750 Section 3 example',
      'Bearer realm="example", error="invalid_token", error_description="The access token expired"',
      [
        {
          scheme: 'bearer',
          params: { realm: 'example', error: 'invalid_token', error_description: 'The access token expired' },
        },
      ],
    ],
    [
      'scheme and parameter names in any case, returned lowercase',
      'BEARER Realm="a", SCOPE="B"',
      [{ scheme: 'bearer', params: { realm: 'a', scope: 'B' } }],
    ],
    [
      'token values',
      'Bearer error=invalid_token',
      [{ scheme: 'bearer', params: { error: 'invalid_token' } }],
    ],
    [
      'bad whitespace around = and commas',
      'Bearer realm = "a" ,scope=\tb',
      [{ scheme: 'bearer', params: { realm: 'a', scope: 'b' } }],
    ],
    ['an empty quoted value', 'Bearer realm=""', [{ scheme: 'bearer', params: { realm: '' } }]],
    [
      'commas and equals signs inside quoted strings',
      'Bearer scope="a,b", realm="c=d, Basic x"',
      [{ scheme: 'bearer', params: { scope: 'a,b', realm: 'c=d, Basic x' } }],
    ],
    [
      'the RFC 9110 Section 11.6.1 example with two challenges',
      'Newauth realm="apps", type=1, title="Login to \\"apps\\"", Basic realm="simple"',
      [
        { scheme: 'newauth', params: { realm: 'apps', type: '1', title: 'Login to "apps"' } },
        { scheme: 'basic', params: { realm: 'simple' } },
      ],
    ],
    [
      'a token68 challenge',
      'Basic YWxhZGRpbjpvcGVuc2VzYW1l',
      [{ scheme: 'basic', params: {}, token68: 'YWxhZGRpbjpvcGVuc2VzYW1l' }],
    ],
    [
      'a token68 with padding, then another challenge',
      'Negotiate a+b/c==, Bearer realm="x"',
      [
        { scheme: 'negotiate', params: {}, token68: 'a+b/c==' },
        { scheme: 'bearer', params: { realm: 'x' } },
      ],
    ],
    ['a scheme alone', 'Bearer', [{ scheme: 'bearer', params: {} }]],
    [
      'a lone name= right after the scheme as the token68 the grammar makes it',
      'Bearer realm=',
      [{ scheme: 'bearer', params: {}, token68: 'realm=' }],
    ],
    [
      'schemes without parameters between others',
      'Bearer, Basic realm="x", DPoP',
      [
        { scheme: 'bearer', params: {} },
        { scheme: 'basic', params: { realm: 'x' } },
        { scheme: 'dpop', params: {} },
      ],
    ],
    [
      'empty list elements',
      ' , Bearer realm="a",, , scope="b" ,',
      [{ scheme: 'bearer', params: { realm: 'a', scope: 'b' } }],
    ],
    [
      'an empty element right after the scheme',
      'Bearer , realm="a"',
      [{ scheme: 'bearer', params: { realm: 'a' } }],
    ],
    [
      'a DPoP and a Bearer challenge',
      'DPoP algs="ES256 PS256", Bearer realm="x"',
      [
        { scheme: 'dpop', params: { algs: 'ES256 PS256' } },
        { scheme: 'bearer', params: { realm: 'x' } },
      ],
    ],
    [
      'obs-text in a quoted string',
      'Bearer realm="caf\u00e9"',
      [{ scheme: 'bearer', params: { realm: 'caf\u00e9' } }],
    ],
  ])('reads %s', (_name, header, challenges) => {
    expect(parseWwwAuthenticate(header)).toEqual(challenges);
  });

  describe('skips what it cannot parse', () => {
    it.each<[string, string, Challenge[]]>([
      ['an empty header', '', []],
      ['only whitespace and commas', ' \t, ,', []],
      ['a repeated parameter', 'Bearer realm="a", realm="b"', []],
      ['a parameter repeated in another case', 'Bearer realm="a", REALM="a"', []],
      [
        'a repeated parameter, dropping only its challenge',
        'Basic realm="x", Bearer scope="a", scope="b", DPoP algs="ES256"',
        [
          { scheme: 'basic', params: { realm: 'x' } },
          { scheme: 'dpop', params: { algs: 'ES256' } },
        ],
      ],
      ['an unterminated quoted string', 'Bearer realm="a', []],
      [
        'an unterminated quoted string after a valid challenge',
        'Basic realm="x", Bearer realm="a, scope="b"',
        [{ scheme: 'basic', params: { realm: 'x' } }],
      ],
      ['a quoted string ending in a lone backslash', 'Bearer realm="a\\', []],
      ['two parameters without a comma', 'Bearer realm="a" scope="b"', []],
      ['two bare words after the scheme', 'Bearer foo bar', []],
      ['a parameter without a value', 'Bearer scope="a", realm=', []],
      [
        'a parameter without a value before a valid challenge',
        'Bearer scope="a", realm=, Basic realm="x"',
        [{ scheme: 'basic', params: { realm: 'x' } }],
      ],
      ['a later parameter without a value', 'Bearer a="b", x =, Basic', [{ scheme: 'basic', params: {} }]],
      ['a value that is neither token nor quoted string', 'Bearer realm=a b', []],
      ['a quoted value with no name', 'Bearer "x"', []],
      ['an equals sign with no name', 'Bearer =x', []],
      ['a scheme glued to a quoted string', 'Bearer"x"', []],
      ['a quoted value glued to the next token', 'Bearer realm="a"scope="b"', []],
      [
        'a broken element after parameters',
        'Bearer realm="a", "junk", Basic',
        [{ scheme: 'basic', params: {} }],
      ],
      ['CR LF inside a quoted string', 'Bearer realm="a\r\nSet-Cookie: x=1"', []],
      ['CR LF after a parameter', 'Bearer realm="a"\r\nSet-Cookie: x=1', []],
      ['a bare LF inside a quoted string', 'Bearer realm="a\nb"', []],
      ['a NUL inside a quoted string', 'Bearer realm="a\u0000b"', []],
      ['DEL inside a quoted string', 'Bearer realm="a\u007fb"', []],
      ['an escaped CR', 'Bearer realm="a\\\rb"', []],
      [
        'a parameter before any scheme',
        'realm="a", Bearer scope="b"',
        [{ scheme: 'bearer', params: { scope: 'b' } }],
      ],
      [
        'a parameter after a token68 challenge',
        'Basic abc=, realm="x"',
        [{ scheme: 'basic', params: {}, token68: 'abc=' }],
      ],
    ])('%s', (_name, header, challenges) => {
      expect(parseWwwAuthenticate(header)).toEqual(challenges);
    });

    it('returns [] for a value that is not a string', () => {
      expect(parseWwwAuthenticate(undefined as unknown as string)).toEqual([]);
      expect(parseWwwAuthenticate(null as unknown as string)).toEqual([]);
      expect(parseWwwAuthenticate(['Bearer'] as unknown as string)).toEqual([]);
    });
  });

  it('keeps a parameter named __proto__ as an own property without touching the prototype', () => {
    const [challenge] = parseWwwAuthenticate('Bearer __proto__="x", constructor="y"');
    expect(challenge).toBeDefined();
    expect(Object.getPrototypeOf(challenge?.params)).toBe(Object.prototype);
    expect(Object.keys(challenge?.params ?? {})).toEqual(['__proto__', 'constructor']);
    expect(Object.getOwnPropertyDescriptor(challenge?.params, '__proto__')?.value).toBe('x');
    expect(challenge?.params.constructor).toBe('y');
  });

  it('reads a very long header', () => {
    const scopes = Array.from({ length: 20_000 }, (_, i) => `s${i}`).join(' ');
    const [challenge] = parseWwwAuthenticate(`Bearer scope="${scopes}", realm="a"`);
    expect(challenge?.params.scope).toBe(scopes);
    expect(parseWwwAuthenticate(`Bearer ${'a="b", '.repeat(20_000)}`)).toEqual([]);
    expect(parseWwwAuthenticate(`Bearer realm="${'\\"'.repeat(20_000)}`)).toEqual([]);
  });
});

describe('formatWwwAuthenticate', () => {
  it.each<[string, Challenge, string]>([
    [
      'the 401 challenge',
      { scheme: 'Bearer', params: { resource_metadata: PRM, scope: 'files:read files:write' } },
      `Bearer resource_metadata="${PRM}", scope="files:read files:write"`,
    ],
    [
      'escaped quotes and backslashes',
      { scheme: 'Bearer', params: { realm: 'say "hi" \\ bye' } },
      'Bearer realm="say \\"hi\\" \\\\ bye"',
    ],
    ['an empty value', { scheme: 'Bearer', params: { realm: '' } }, 'Bearer realm=""'],
    ['a scheme alone', { scheme: 'Bearer', params: {} }, 'Bearer'],
    ['a token68', { scheme: 'Basic', params: {}, token68: 'YWxh==' }, 'Basic YWxh=='],
  ])('writes %s', (_name, challenge, header) => {
    expect(formatWwwAuthenticate(challenge)).toBe(header);
  });

  it.each<[string, Challenge]>([
    ['CR LF in a value', { scheme: 'Bearer', params: { error_description: 'x"\r\nSet-Cookie: a=b' } }],
    ['a bare LF in a value', { scheme: 'Bearer', params: { realm: 'a\nb' } }],
    ['a bare CR in a value', { scheme: 'Bearer', params: { realm: 'a\rb' } }],
    ['a tab in a value', { scheme: 'Bearer', params: { realm: 'a\tb' } }],
    ['NUL in a value', { scheme: 'Bearer', params: { realm: 'a\u0000' } }],
    ['DEL in a value', { scheme: 'Bearer', params: { realm: 'a\u007f' } }],
    ['a C1 control in a value', { scheme: 'Bearer', params: { realm: 'a\u0085' } }],
    ['a non-ASCII value', { scheme: 'Bearer', params: { realm: 'caf\u00e9' } }],
    ['a value that is not a string', { scheme: 'Bearer', params: { realm: 1 as unknown as string } }],
    ['a scheme that is not a token', { scheme: 'Bear er', params: {} }],
    ['an empty scheme', { scheme: '', params: {} }],
    ['a scheme with CR LF', { scheme: 'Bearer\r\nX', params: {} }],
    ['a parameter name that is not a token', { scheme: 'Bearer', params: { 're alm': 'a' } }],
    ['a parameter name with =', { scheme: 'Bearer', params: { 'a=b': 'a' } }],
    ['an empty parameter name', { scheme: 'Bearer', params: { '': 'a' } }],
    ['two names equal but for case', { scheme: 'Bearer', params: { realm: 'a', REALM: 'b' } }],
    ['a token68 and parameters', { scheme: 'Basic', params: { realm: 'a' }, token68: 'abc' }],
    ['a token68 with a space', { scheme: 'Basic', params: {}, token68: 'a b' }],
    ['a token68 with a comma', { scheme: 'Basic', params: {}, token68: 'a,b' }],
  ])('throws TypeError on %s', (_name, challenge) => {
    expect(() => formatWwwAuthenticate(challenge)).toThrow(TypeError);
  });
});

describe('WWW-Authenticate properties', () => {
  const tchar = fc.constantFrom(..."!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyz".split(''));
  const lowerToken = fc.string({ unit: tchar, minLength: 1, maxLength: 12 });
  const printable = fc.string({
    unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)),
    maxLength: 24,
  });
  const token68 = fc
    .tuple(
      fc.string({ unit: fc.constantFrom(...'AZaz09-._~+/'.split('')), minLength: 1, maxLength: 16 }),
      fc.integer({ min: 0, max: 2 }),
    )
    .map(([body, padding]) => body + '='.repeat(padding));
  const paramsChallenge: fc.Arbitrary<Challenge> = fc.record({
    scheme: lowerToken,
    params: fc.dictionary(lowerToken, printable, { maxKeys: 5, noNullPrototype: true }),
  });
  const token68Challenge: fc.Arbitrary<Challenge> = fc.record({
    scheme: lowerToken,
    params: fc.constant({}),
    token68,
  });
  const challenge = fc.oneof(paramsChallenge, token68Challenge);

  it('parses a formatted challenge back to the same challenge', () => {
    fc.assert(
      fc.property(challenge, (c) => {
        expect(parseWwwAuthenticate(formatWwwAuthenticate(c))).toEqual([c]);
      }),
      { numRuns: 1000 },
    );
  });

  it('parses several formatted challenges joined by commas back to the same list', () => {
    fc.assert(
      fc.property(fc.array(challenge, { maxLength: 4 }), (cs) => {
        expect(parseWwwAuthenticate(cs.map(formatWwwAuthenticate).join(', '))).toEqual(cs);
      }),
    );
  });

  it('lowercases scheme and parameter names on the way back', () => {
    fc.assert(
      fc.property(fc.mixedCase(lowerToken), fc.mixedCase(lowerToken), printable, (scheme, name, value) => {
        const [parsed] = parseWwwAuthenticate(formatWwwAuthenticate({ scheme, params: { [name]: value } }));
        expect(parsed).toEqual({ scheme: scheme.toLowerCase(), params: { [name.toLowerCase()]: value } });
      }),
    );
  });

  const headerPieces = fc.constantFrom(
    'Bearer',
    'Basic',
    'realm',
    'scope',
    'a',
    ' ',
    '\t',
    ',',
    '=',
    '"',
    '\\',
    '\\"',
    '"x"',
    'abc==',
    '\r\n',
    '\u0000',
    'é',
    '__proto__',
  );
  const hostileHeader = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 80 }),
    fc.array(headerPieces, { maxLength: 20 }).map((pieces) => pieces.join('')),
  );

  it('never throws, and returns only lowercase token schemes and parameter names', () => {
    fc.assert(
      fc.property(hostileHeader, (header) => {
        const challenges = parseWwwAuthenticate(header);
        for (const c of challenges) {
          expect(c.scheme).toMatch(/^[!#$%&'*+\-.^_`|~0-9a-z]+$/u);
          for (const name of Object.keys(c.params)) expect(name).toMatch(/^[!#$%&'*+\-.^_`|~0-9a-z]+$/u);
          if (c.token68 !== undefined) expect(Object.keys(c.params)).toHaveLength(0);
        }
      }),
      { numRuns: 3000 },
    );
  });
});
