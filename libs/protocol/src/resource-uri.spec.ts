import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { OAuthError } from './oauth-error.js';
import { canonicalizeResourceUri } from './resource-uri.js';

function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

function expectInvalidTarget(uri: string): void {
  const error = thrownBy(() => canonicalizeResourceUri(uri));
  expect(error).toBeInstanceOf(OAuthError);
  expect((error as OAuthError).code).toBe('invalid_target');
  expect((error as OAuthError).status).toBe(400);
}

describe('canonicalizeResourceUri', () => {
  it.each([
    ['https://mcp.example.com', 'https://mcp.example.com'],
    ['https://MCP.example.com/', 'https://mcp.example.com'],
    ['https://MCP.example.com:443/', 'https://mcp.example.com'],
    ['HTTPS://MCP.EXAMPLE.COM', 'https://mcp.example.com'],
    ['http://x:80', 'http://x'],
    ['http://x:80/', 'http://x'],
    ['https://x:80', 'https://x:80'],
    ['http://x:443/mcp', 'http://x:443/mcp'],
    ['https://mcp.example.com:8443', 'https://mcp.example.com:8443'],
    ['https://mcp.example.com:00443/mcp', 'https://mcp.example.com/mcp'],
    ['https://mcp.example.com:/mcp', 'https://mcp.example.com/mcp'],
    ['https://mcp.example.com/mcp', 'https://mcp.example.com/mcp'],
    ['HTTPS://x/Path', 'https://x/Path'],
    ['https://mcp.example.com/public/MCP', 'https://mcp.example.com/public/MCP'],
    ['https://mcp.example.com/mcp/', 'https://mcp.example.com/mcp/'],
    ['https://mcp.example.com//', 'https://mcp.example.com//'],
    ['https://mcp.example.com/a%2fb/%7E', 'https://mcp.example.com/a%2fb/%7E'],
    ['https://mcp.example.com/a/./b/../c', 'https://mcp.example.com/a/./b/../c'],
    ["https://mcp.example.com/t=1;v=(x)!*'@:$&+,", "https://mcp.example.com/t=1;v=(x)!*'@:$&+,"],
    ['https://mcp.example.com/mcp?b=2&a=1', 'https://mcp.example.com/mcp?b=2&a=1'],
    ['https://mcp.example.com/mcp?Q=%2F/?', 'https://mcp.example.com/mcp?Q=%2F/?'],
    ['https://mcp.example.com/mcp?', 'https://mcp.example.com/mcp?'],
    ['https://mcp.example.com/?tenant=a', 'https://mcp.example.com?tenant=a'],
    ['https://mcp.example.com?tenant=a', 'https://mcp.example.com?tenant=a'],
    ['http://127.0.0.1:3000/mcp', 'http://127.0.0.1:3000/mcp'],
    ['http://localhost:3000/mcp', 'http://localhost:3000/mcp'],
    ['https://[::1]:8443/mcp', 'https://[::1]:8443/mcp'],
    ['https://[2001:DB8::1]/', 'https://[2001:db8::1]'],
    ['https://[0:0:0:0:0:0:0:1]', 'https://[::1]'],
    ['https://[::1]:443', 'https://[::1]'],
    ['https://xn--bcher-kva.example/mcp', 'https://xn--bcher-kva.example/mcp'],
    ['https://mcp.example.com./mcp', 'https://mcp.example.com./mcp'],
  ])('canonicalises %s to %s', (input, canonical) => {
    expect(canonicalizeResourceUri(input)).toBe(canonical);
  });

  describe('refuses with invalid_target', () => {
    it.each(['https://x#', 'https://x/#', 'https://mcp.example.com/mcp#section', 'https://x?a=1#'])(
      'a fragment, even an empty one: %j',
      expectInvalidTarget,
    );

    it.each(['mcp.example.com', 'mcp.example.com/mcp', '/mcp', '//mcp.example.com/mcp', '', '1http://x'])(
      'a relative URI: %j',
      expectInvalidTarget,
    );

    it.each(['https://user@x/mcp', 'https://user:pass@mcp.example.com', 'https://@x', 'https://x@y@z/'])(
      'userinfo: %j',
      expectInvalidTarget,
    );

    it.each([
      'ftp://x/mcp',
      'wss://mcp.example.com',
      'javascript:alert(1)',
      'data:text/plain,x',
      'file:///etc/passwd',
      'urn:ietf:params:oauth:x',
      'localhost:3000',
    ])('a scheme other than http or https: %j', expectInvalidTarget);

    it.each(['https://', 'https:///mcp', 'https:mcp.example.com', 'https:/mcp.example.com', 'http://:8080/'])(
      'no host: %j',
      expectInvalidTarget,
    );

    it.each([
      ' https://x',
      'https://x ',
      'https://x/a b',
      'https://x/\t',
      'https://x\n',
      'https://x/\r\nLocation: https://evil',
      'https://x/\u0000',
      'https://x/\u007f',
      'https://x/\u0085',
      'https://x/\u00a0',
      'https://x/\u2028',
    ])('whitespace or control characters: %j', expectInvalidTarget);

    it.each([
      'https://x/caf\u00e9',
      'https://exämple.com',
      'https://x/\u202e',
      'https://x/a\\b',
      'https://x\\@evil.example/',
      'https://x/a<b>',
      'https://x/%zz',
      'https://x/%4',
      'https://x/?a[]=1',
      'https://x/{id}',
    ])('characters RFC 3986 does not allow where they are: %j', expectInvalidTarget);

    it.each([
      'https://x:abc/',
      'https://x:65536',
      'https://x:-1',
      'https://x:+443',
      'https://[::1',
      'https://[::1]x',
      'https://[::1]:8443:1',
      'https://[fe80::1%25eth0]/',
      'https://[v1.fe]/',
      'https://[127.0.0.1]/',
      'https://[::1]]/',
    ])('a malformed port or IP literal: %j', expectInvalidTarget);

    it.each([
      'https://127.1/',
      'https://0x7f.0.0.1/',
      'https://2130706433/',
      'https://127.000.000.001/',
      'https://1.2.3.4./',
      'https://ex%61mple.com/',
      'https://exa!mple.com/',
    ])('a host a WHATWG parser would rewrite or refuse: %j', expectInvalidTarget);

    it('a value that is not a string', () => {
      expectInvalidTarget(undefined as unknown as string);
      expectInvalidTarget(42 as unknown as string);
    });
  });

  describe('properties', () => {
    const label = fc.stringMatching(/^[a-z][a-z0-9]{0,7}$/u);
    const domain = fc.array(label, { minLength: 1, maxLength: 4 }).map((labels) => labels.join('.'));
    const host = fc.oneof(
      fc.mixedCase(domain),
      fc.ipV4(),
      fc.ipV6().map((ip) => `[${ip}]`),
    );
    const scheme = fc.mixedCase(fc.constantFrom('http', 'https'));
    const port = fc.option(
      fc.oneof(fc.constantFrom('', '80', '443', '0443'), fc.integer({ min: 0, max: 65535 }).map(String)),
      { nil: undefined },
    );
    const path = fc.oneof(
      fc.constant(''),
      fc.constant('/'),
      fc.array(fc.webSegment(), { minLength: 1, maxLength: 4 }).map((segments) => `/${segments.join('/')}`),
    );
    const query = fc.option(fc.webQueryParameters(), { nil: undefined });
    const resourceLike = fc.record({ scheme, host, port, path, query });
    const build = (r: {
      scheme: string;
      host: string;
      port?: string;
      path: string;
      query?: string;
    }): string =>
      `${r.scheme}://${r.host}${r.port === undefined ? '' : `:${r.port}`}${r.path}${r.query === undefined ? '' : `?${r.query}`}`;

    it('accepts every valid http(s) URI, keeping the path (other than /) and the query byte for byte', () => {
      fc.assert(
        fc.property(resourceLike, (r) => {
          const canonical = canonicalizeResourceUri(build(r));
          const kept = `${r.path === '/' ? '' : r.path}${r.query === undefined ? '' : `?${r.query}`}`;
          expect(canonical.endsWith(kept)).toBe(true);
          expect(canonical.startsWith(`${r.scheme.toLowerCase()}://`)).toBe(true);
          // WHATWG URL agrees on which origin the canonical URI names.
          expect(new URL(canonical).origin).toBe(new URL(build(r)).origin);
        }),
      );
    });

    it('is idempotent and never returns a fragment', () => {
      fc.assert(
        fc.property(resourceLike, (r) => {
          const canonical = canonicalizeResourceUri(build(r));
          expect(canonicalizeResourceUri(canonical)).toBe(canonical);
          expect(canonical).not.toContain('#');
        }),
      );
    });

    it('maps every case and default-port spelling of one URI to the same canonical form', () => {
      fc.assert(
        fc.property(resourceLike, (r) => {
          const lower = { ...r, scheme: r.scheme.toLowerCase(), host: r.host.toLowerCase() };
          expect(canonicalizeResourceUri(build(r))).toBe(canonicalizeResourceUri(build(lower)));
        }),
      );
    });

    const uriFragments = fc.constantFrom(
      'http',
      'HTTPS',
      'https',
      ':',
      '//',
      '/',
      '@',
      '#',
      '?',
      '[',
      ']',
      '::1',
      '%',
      '%2F',
      ':443',
      'x',
      'Example.COM',
      '.',
      '..',
      ' ',
      '\t',
      '\r\n',
      '\\',
      'é',
    );
    const hostile = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 64 }),
      fc.array(uriFragments, { maxLength: 12 }).map((parts) => parts.join('')),
      fc
        .tuple(fc.webUrl({ withFragments: true, withQueryParameters: true }), fc.array(uriFragments))
        .map(([url, suffix]) => url + suffix.join('')),
    );

    it('on any input either returns an idempotent value without fragment or throws invalid_target', () => {
      fc.assert(
        fc.property(hostile, (input) => {
          let canonical: string;
          try {
            canonical = canonicalizeResourceUri(input);
          } catch (error) {
            expect(error).toBeInstanceOf(OAuthError);
            expect((error as OAuthError).code).toBe('invalid_target');
            return;
          }
          expect(canonical).not.toContain('#');
          expect(canonicalizeResourceUri(canonical)).toBe(canonical);
        }),
        { numRuns: 2000 },
      );
    });
  });
});
