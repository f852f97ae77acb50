import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { isLoopbackHost } from './loopback.js';
import { isLoopbackIpLiteral, redirectUriMatches } from './redirect-uri.js';

describe('redirectUriMatches', () => {
  it.each<[string, string[], string, boolean]>([
    // Exact match, no normalisation.
    ['an exact https match', ['https://app.example.com/cb'], 'https://app.example.com/cb', true],
    [
      'a second registered value',
      ['https://a.example/cb', 'https://b.example/cb'],
      'https://b.example/cb',
      true,
    ],
    ['no registered value', [], 'https://app.example.com/cb', false],
    ['a different host case', ['https://app.example.com/cb'], 'https://App.example.com/cb', false],
    ['a different scheme case', ['https://app.example.com/cb'], 'HTTPS://app.example.com/cb', false],
    ['an explicit default port', ['https://app.example.com/cb'], 'https://app.example.com:443/cb', false],
    ['an added trailing slash', ['https://app.example.com/cb'], 'https://app.example.com/cb/', false],
    ['a percent-encoded path', ['https://app.example.com/cb'], 'https://app.example.com/c%62', false],
    ['an added query', ['https://app.example.com/cb'], 'https://app.example.com/cb?x=1', false],
    ['an added fragment', ['https://app.example.com/cb'], 'https://app.example.com/cb#x', false],
    ['a path prefix', ['https://app.example.com/cb'], 'https://app.example.com/cb/../evil', false],
    [
      'a port on a non-loopback http host',
      ['http://app.example.com/cb'],
      'http://app.example.com:81/cb',
      false,
    ],
    ['a custom scheme', ['com.example.app:/cb'], 'com.example.app:/cb', true],
    [
      "Cursor's private-use redirect, exactly",
      ['cursor://anysphere.cursor-mcp/oauth/callback'],
      'cursor://anysphere.cursor-mcp/oauth/callback',
      true,
    ],
    [
      'a private-use redirect with a port added',
      ['cursor://anysphere.cursor-mcp/oauth/callback'],
      'cursor://anysphere.cursor-mcp:80/oauth/callback',
      false,
    ],
    // RFC 8252 Section 7.3: loopback IP literals accept any port.
    ['127.0.0.1 with a port against no port', ['http://127.0.0.1/cb'], 'http://127.0.0.1:5000/cb', true],
    ['[::1] with a port against no port', ['http://[::1]/cb'], 'http://[::1]:61000/cb', true],
    [
      '127.0.0.1 with a port against another port',
      ['http://127.0.0.1:8080/cb'],
      'http://127.0.0.1:1/cb',
      true,
    ],
    ['127.0.0.1 without a port against a port', ['http://127.0.0.1:8080/cb'], 'http://127.0.0.1/cb', true],
    ['127.0.0.1 with the highest port', ['http://127.0.0.1/cb'], 'http://127.0.0.1:65535/cb', true],
    ['127.0.0.1 with no path', ['http://127.0.0.1'], 'http://127.0.0.1:5000', true],
    [
      '127.0.0.1 with the same query',
      ['http://127.0.0.1/cb?a=1&b=2'],
      'http://127.0.0.1:5000/cb?a=1&b=2',
      true,
    ],
    [
      '127.0.0.1 among other values',
      ['https://a.example/cb', 'http://127.0.0.1/cb'],
      'http://127.0.0.1:9/cb',
      true,
    ],
    [
      'localhost with a port against no port',
      ['http://localhost/callback'],
      'http://localhost:53076/callback',
      true,
    ],
    // The registrations shipping clients send: Claude Code's document, VS Code's registration.
    [
      "Claude Code's portless pair, asked on localhost with a port",
      ['http://localhost/callback', 'http://127.0.0.1/callback'],
      'http://localhost:61412/callback',
      true,
    ],
    [
      "Claude Code's portless pair, asked on 127.0.0.1 with a port",
      ['http://localhost/callback', 'http://127.0.0.1/callback'],
      'http://127.0.0.1:61412/callback',
      true,
    ],
    [
      "VS Code's portless root, asked on its default port 33418",
      ['https://vscode.dev/redirect', 'http://127.0.0.1/'],
      'http://127.0.0.1:33418/',
      true,
    ],
    [
      "VS Code's redirects, asked on another port when 33418 is busy",
      [
        'https://insiders.vscode.dev/redirect',
        'https://vscode.dev/redirect',
        'http://127.0.0.1/',
        'http://127.0.0.1:33418/',
      ],
      'http://127.0.0.1:50231/',
      true,
    ],
    [
      "VS Code's root, asked without its trailing slash",
      ['http://127.0.0.1/', 'http://127.0.0.1:33418/'],
      'http://127.0.0.1:33418',
      false,
    ],
    [
      'localhost with a port against another port',
      ['http://localhost:3000/cb'],
      'http://localhost:1/cb',
      true,
    ],
    // The loopback exception frees the port and nothing else.
    ['an uppercase LOCALHOST', ['http://localhost/cb'], 'http://LOCALHOST:5000/cb', false],
    [
      'a longer name ending in localhost',
      ['http://localhost/cb'],
      'http://localhost.evil.example:5000/cb',
      false,
    ],
    ['https on localhost', ['https://localhost/cb'], 'https://localhost:5000/cb', false],
    ['localhost with userinfo', ['http://localhost/cb'], 'http://a@localhost:5000/cb', false],
    ['localhost with another path', ['http://localhost/callback'], 'http://localhost:5000/callback/x', false],
    ['localhost for 127.0.0.1', ['http://localhost/cb'], 'http://127.0.0.1:5000/cb', false],
    ['127.0.0.1 for localhost', ['http://127.0.0.1/cb'], 'http://localhost:5000/cb', false],
    ['[::1] for 127.0.0.1', ['http://127.0.0.1/cb'], 'http://[::1]:5000/cb', false],
    ['another 127/8 address', ['http://127.0.0.1/cb'], 'http://127.0.0.2:5000/cb', false],
    ['an unabbreviated [::1]', ['http://[::1]/cb'], 'http://[0:0:0:0:0:0:0:1]:5000/cb', false],
    ['https on loopback', ['https://127.0.0.1/cb'], 'https://127.0.0.1:5000/cb', false],
    ['an uppercase scheme', ['http://127.0.0.1/cb'], 'HTTP://127.0.0.1:5000/cb', false],
    ['a different path', ['http://127.0.0.1/cb'], 'http://127.0.0.1:5000/cb2', false],
    ['a path in another case', ['http://127.0.0.1/cb'], 'http://127.0.0.1:5000/CB', false],
    ['a trailing slash', ['http://127.0.0.1/cb'], 'http://127.0.0.1:5000/cb/', false],
    ['a longer path', ['http://127.0.0.1/cb'], 'http://127.0.0.1:5000/cb/extra', false],
    ['a dot segment', ['http://127.0.0.1/cb'], 'http://127.0.0.1:5000/x/../cb', false],
    ['an added query', ['http://127.0.0.1/cb'], 'http://127.0.0.1:5000/cb?x=1', false],
    ['an empty query', ['http://127.0.0.1/cb'], 'http://127.0.0.1:5000/cb?', false],
    ['a reordered query', ['http://127.0.0.1/cb?a=1&b=2'], 'http://127.0.0.1:5000/cb?b=2&a=1', false],
    ['a fragment', ['http://127.0.0.1/cb'], 'http://127.0.0.1:5000/cb#x', false],
    ['port 0', ['http://127.0.0.1/cb'], 'http://127.0.0.1:0/cb', false],
    ['port 65536', ['http://127.0.0.1/cb'], 'http://127.0.0.1:65536/cb', false],
    ['an empty port', ['http://127.0.0.1/cb'], 'http://127.0.0.1:/cb', false],
    ['a signed port', ['http://127.0.0.1/cb'], 'http://127.0.0.1:+80/cb', false],
    ['a non-numeric port', ['http://127.0.0.1/cb'], 'http://127.0.0.1:http/cb', false],
    ['two ports', ['http://127.0.0.1/cb'], 'http://127.0.0.1:80:81/cb', false],
    // Hostile inputs: the authority must really be the loopback literal.
    ['userinfo hiding another host', ['http://127.0.0.1/cb'], 'http://127.0.0.1:5000@evil.example/cb', false],
    ['userinfo before loopback', ['http://127.0.0.1/cb'], 'http://evil.example@127.0.0.1:5000/cb', false],
    [
      'a backslash in the authority',
      ['http://127.0.0.1/cb'],
      'http://127.0.0.1:5000\\@evil.example/cb',
      false,
    ],
    ['a backslash in the path', ['http://127.0.0.1/cb'], 'http://127.0.0.1:5000\\cb', false],
    ['trailing whitespace', ['http://127.0.0.1/cb'], 'http://127.0.0.1:5000/cb ', false],
    ['CR LF', ['http://127.0.0.1/cb'], 'http://127.0.0.1:5000/cb\r\n', false],
    ['a tab in the host', ['http://127.0.0.1/cb'], 'http://127.0.0.\t1:5000/cb', false],
    ['a registered value with userinfo', ['http://u@127.0.0.1/cb'], 'http://u@127.0.0.1:5000/cb', false],
  ])('%s: %j against %s gives %s', (_name, registered, requested, expected) => {
    expect(redirectUriMatches(registered, requested)).toBe(expected);
  });

  it('refuses a requested value that is not a string', () => {
    expect(redirectUriMatches(['http://127.0.0.1/cb'], undefined as unknown as string)).toBe(false);
  });

  const pathAndQuery = fc
    .tuple(
      fc.array(fc.webSegment(), { maxLength: 3 }),
      fc.option(fc.webQueryParameters(), { nil: undefined }),
    )
    .map(
      ([segments, query]) =>
        `${segments.map((s) => `/${s}`).join('')}${query === undefined ? '' : `?${query}`}`,
    );
  const port = fc.integer({ min: 1, max: 65535 });
  const loopback = fc.constantFrom('127.0.0.1', '[::1]', 'localhost');

  it('accepts any port for a registered loopback IP redirect URI, path and query unchanged', () => {
    fc.assert(
      fc.property(loopback, pathAndQuery, port, (host, rest, p) => {
        expect(redirectUriMatches([`http://${host}${rest}`], `http://${host}:${p}${rest}`)).toBe(true);
      }),
    );
  });

  it('never lets one loopback host stand for another', () => {
    fc.assert(
      fc.property(loopback, loopback, pathAndQuery, port, (registered, requested, rest, p) => {
        fc.pre(registered !== requested);
        expect(redirectUriMatches([`http://${registered}${rest}`], `http://${requested}:${p}${rest}`)).toBe(
          false,
        );
      }),
    );
  });

  it('refuses a loopback redirect whose path or query differs in any way', () => {
    fc.assert(
      fc.property(loopback, pathAndQuery, pathAndQuery, port, (host, registered, requested, p) => {
        fc.pre(registered !== requested);
        expect(redirectUriMatches([`http://${host}${registered}`], `http://${host}:${p}${requested}`)).toBe(
          false,
        );
      }),
    );
  });
});

describe('loopback hosts', () => {
  it.each<[string, boolean, boolean]>([
    ['127.0.0.1', true, true],
    ['[::1]', true, true],
    ['::1', false, true],
    ['localhost', false, true],
    ['LOCALHOST', false, true],
    ['127.0.0.2', false, true],
    ['127.255.255.255', false, true],
    ['127.0.0.256', false, false],
    ['128.0.0.1', false, false],
    ['[::1]:80', false, false],
    ['localhost.example.com', false, false],
    ['[0:0:0:0:0:0:0:1]', false, false],
    ['example.com', false, false],
  ])('%s is a loopback IP literal: %s, a loopback host: %s', (host, ipLiteral, loopbackHost) => {
    expect(isLoopbackIpLiteral(host)).toBe(ipLiteral);
    expect(isLoopbackHost(host)).toBe(loopbackHost);
  });
});
