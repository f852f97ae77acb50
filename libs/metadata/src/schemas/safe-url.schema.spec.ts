import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  EndpointUrlSchema,
  findUrlProblem,
  hasRefusedUrlScheme,
  IssuerUrlSchema,
  isLoopbackHostname,
  RedirectUriSchema,
  REFUSED_URL_SCHEMES,
  safeUrl,
  WebPageUrlSchema,
  type SafeUrlOptions,
  type UrlProblem,
} from './safe-url.schema.js';

const ALL_PRESETS = { EndpointUrlSchema, IssuerUrlSchema, WebPageUrlSchema, RedirectUriSchema };

describe('hasRefusedUrlScheme', () => {
  it.each([
    'javascript:alert(1)',
    'JavaScript:alert(1)',
    'JAVASCRIPT:alert(1)',
    'data:text/html,<script>alert(1)</script>',
    'DATA:image/png;base64,AAAA',
    'vbscript:msgbox(1)',
    'VBScript:msgbox(1)',
    'file:///etc/passwd',
    'FILE:///C:/Windows/win.ini',
    ' javascript:alert(1)',
    '\tjavascript:alert(1)',
    '\n\r javascript:alert(1)',
    '\u0000javascript:alert(1)',
    '\u001fdata:text/html,x',
    'java\tscript:alert(1)',
    'java\nscript:alert(1)',
    'jav\r\nascript:alert(1)',
    '\u0001 \tJaVa\nScRiPt:alert(1)',
  ])('refuses %j', (value) => {
    expect(hasRefusedUrlScheme(value)).toBe(true);
  });

  it.each([
    'https://example.com/javascript:alert(1)',
    'https://example.com/?next=data:text/html,x',
    'javascripts:alert(1)',
    'myjavascript:alert(1)',
    'https://example.com',
    'com.example.app:/callback',
    'javascript',
    '',
  ])('lets %j through', (value) => {
    expect(hasRefusedUrlScheme(value)).toBe(false);
  });

  it('refuses every refused scheme however a browser would still read it', () => {
    const c0OrSpace = fc.integer({ min: 0, max: 0x20 }).map((code) => String.fromCharCode(code));
    const tabOrNewline = fc.constantFrom('\t', '\n', '\r');
    fc.assert(
      fc.property(
        fc.constantFrom(...REFUSED_URL_SCHEMES),
        fc.array(fc.boolean(), { minLength: 10, maxLength: 10 }),
        fc.array(c0OrSpace, { maxLength: 4 }),
        fc.array(fc.tuple(fc.nat(), tabOrNewline), { maxLength: 3 }),
        fc.string(),
        (scheme, upper, prefix, inserts, rest) => {
          let disguised = [...scheme]
            .map((ch, i) => (upper[i % upper.length] ? ch.toUpperCase() : ch))
            .join('');
          for (const [at, ch] of inserts) {
            const i = at % (disguised.length + 1);
            disguised = disguised.slice(0, i) + ch + disguised.slice(i);
          }
          const value = `${prefix.join('')}${disguised}:${rest}`;
          expect(hasRefusedUrlScheme(value)).toBe(true);
          for (const schema of Object.values(ALL_PRESETS))
            expect(schema.safeParse(value).success).toBe(false);
        },
      ),
    );
  });
});

describe('isLoopbackHostname', () => {
  it.each(['localhost', 'LOCALHOST', '127.0.0.1', '127.1.2.3', '[::1]'])('treats %s as loopback', (host) => {
    expect(isLoopbackHostname(host)).toBe(true);
  });

  it.each([
    'example.com',
    'localhost.example.com',
    'app.localhost',
    '128.0.0.1',
    '[::2]',
    '0.0.0.0',
    '10.0.0.1',
  ])('does not treat %s as loopback', (host) => {
    expect(isLoopbackHostname(host)).toBe(false);
  });
});

describe('findUrlProblem', () => {
  const web: SafeUrlOptions = { schemes: ['https', 'http'], httpsUnlessLoopback: true };
  const rows: [string, SafeUrlOptions, UrlProblem | undefined][] = [
    ['https://as.example.com/token', web, undefined],
    ['https://as.example.com:8443/t?x=1', web, undefined],
    ['http://localhost:4000/token', web, undefined],
    ['http://127.0.0.1:4000/token', web, undefined],
    ['http://[::1]:4000/token', web, undefined],
    ['http://as.example.com/token', web, 'insecure_http'],
    ['http://localhost.evil.example/token', web, 'insecure_http'],
    ['javascript:alert(1)', web, 'refused_scheme'],
    ['  javascript:alert(1)', {}, 'refused_scheme'],
    ['https://as.example.com/to ken', web, 'invalid_characters'],
    ['https://as.example.com/\u00e9', web, 'invalid_characters'],
    ['https://good.example\\@evil.example/', web, 'invalid_characters'],
    ['https://as.example.com/%zz', web, 'invalid_characters'],
    ['/token', web, 'not_absolute'],
    ['as.example.com/token', web, 'not_absolute'],
    ['https://exa[mple.com/', web, 'unparsable'],
    ['ftp://as.example.com/x', web, 'scheme_not_allowed'],
    ['a:$(cmd.exe%20/c%20calc)', web, 'scheme_not_allowed'],
    ['https:as.example.com/token', web, 'missing_host'],
    ['https:///token', web, 'missing_host'],
    ['https://user@as.example.com/token', web, 'userinfo'],
    ['https://user:pass@as.example.com/token', web, 'userinfo'],
    ['https://@as.example.com/token', web, 'userinfo'],
    ['https://as.example.com/token#', web, 'fragment'],
    ['https://as.example.com/token#frag', web, 'fragment'],
    ['https://as.example.com/doc#frag', { ...web, fragment: true }, undefined],
    ['https://as.example.com?x', { ...web, query: false }, 'query'],
    ['https://as.example.com/#?x', { ...web, query: false, fragment: true }, undefined],
    ['com.example.app:/callback', {}, undefined],
    ['myapp://callback/path', {}, undefined],
  ];

  it.each(rows)('reads %j with %j as %s', (value, options, expected) => {
    expect(findUrlProblem(value, options)).toBe(expected);
  });
});

describe('safeUrl', () => {
  it('reports one issue whose params name the problem', () => {
    const result = safeUrl({ schemes: ['https'] }).safeParse('http://example.com/');
    expect(result.success).toBe(false);
    expect(result.error?.issues).toHaveLength(1);
    const issue = result.error?.issues[0];
    expect(issue?.code).toBe('custom');
    expect(issue?.code === 'custom' ? issue.params : undefined).toEqual({ urlProblem: 'scheme_not_allowed' });
    expect(result.error?.issues[0]?.message).toContain('https');
  });

  it('refuses a value that is not a string', () => {
    expect(safeUrl().safeParse(42).success).toBe(false);
  });

  it('returns the URL byte for byte, without normalising it', () => {
    const value = 'HTTPS://AS.Example.com:443/a/../b?x=%41';
    expect(EndpointUrlSchema.parse(value)).toBe(value);
  });
});

describe('the presets', () => {
  it.each([
    ['IssuerUrlSchema', IssuerUrlSchema, 'https://as.example.com/tenant1', true],
    ['IssuerUrlSchema', IssuerUrlSchema, 'https://as.example.com/?tenant=1', false],
    ['IssuerUrlSchema', IssuerUrlSchema, 'https://as.example.com/#', false],
    ['EndpointUrlSchema', EndpointUrlSchema, 'https://as.example.com/authorize?prompt=login', true],
    ['EndpointUrlSchema', EndpointUrlSchema, 'https://as.example.com/authorize#x', false],
    ['WebPageUrlSchema', WebPageUrlSchema, 'http://server.example.com/service_documentation.html', true],
    ['WebPageUrlSchema', WebPageUrlSchema, 'https://example.com/docs#section', true],
    ['WebPageUrlSchema', WebPageUrlSchema, 'data:image/svg+xml,<svg/>', false],
    ['WebPageUrlSchema', WebPageUrlSchema, 'mailto:admin@example.com', false],
    ['RedirectUriSchema', RedirectUriSchema, 'com.example.app:/oauth2redirect', true],
    ['RedirectUriSchema', RedirectUriSchema, 'http://127.0.0.1:5000/cb', true],
    ['RedirectUriSchema', RedirectUriSchema, 'https://client.example.org/cb#', false],
    ['RedirectUriSchema', RedirectUriSchema, 'vbscript:msgbox(1)', false],
  ] as const)('%s: %j accepted is %s', (_name, schema, value, accepted) => {
    expect(schema.safeParse(value).success).toBe(accepted);
  });
});
