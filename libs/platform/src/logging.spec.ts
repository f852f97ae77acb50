import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from '@jest/globals';
import type { DestinationStream, Logger } from 'pino';
import { pinoHttp, type Options as PinoHttpOptions } from 'pino-http';
import { isProbe, loggerParams, redactLogLine, redactUrl, requestIdFor } from './logging.js';

describe('redactUrl', () => {
  it('censors the values of secret query parameters and keeps the rest', () => {
    expect(redactUrl('/cb?code=abc123&state=xyz&iss=http%3A%2F%2Fas')).toBe(
      '/cb?code=[redacted]&state=xyz&iss=http%3A%2F%2Fas',
    );
    expect(redactUrl('/token?client_secret=s3cret&refresh_token=r&access_token=a')).toBe(
      '/token?client_secret=[redacted]&refresh_token=[redacted]&access_token=[redacted]',
    );
  });

  it('censors a secret parameter whose name is percent-encoded', () => {
    expect(redactUrl('/x?c%6Fde=abc')).toBe('/x?c%6Fde=[redacted]');
  });

  it('censors secret query parameters however their names are cased', () => {
    expect(redactUrl('/api/notes?Access_Token=eyJ.a.b&CODE=c1&Client_Secret=s&state=Keep')).toBe(
      '/api/notes?Access_Token=[redacted]&CODE=[redacted]&Client_Secret=[redacted]&state=Keep',
    );
    expect(
      redactUrl('/t?Refresh_Token=r&ID_TOKEN=i&Assertion=a&Subject_Token=s&Code_Verifier=v&%41ccess_token=x'),
    ).toBe(
      '/t?Refresh_Token=[redacted]&ID_TOKEN=[redacted]&Assertion=[redacted]&Subject_Token=[redacted]' +
        '&Code_Verifier=[redacted]&%41ccess_token=[redacted]',
    );
  });

  it('leaves URLs without a query, and malformed escapes, as they were', () => {
    expect(redactUrl('/healthz')).toBe('/healthz');
    expect(redactUrl('/x?%zz=1')).toBe('/x?%zz=1');
  });
});

describe('isProbe', () => {
  it('knows probes and scrapes by the path the client sent, query or not, whatever the URL was rewritten to', () => {
    expect(isProbe({ url: '/healthz' })).toBe(true);
    expect(isProbe({ url: '/readyz?full=1' })).toBe(true);
    expect(isProbe({ url: '/', originalUrl: '/metrics' })).toBe(true);
    expect(isProbe({ url: '/healthz', originalUrl: '/api/notes' })).toBe(false);
    expect(isProbe({ url: '/healthzx' })).toBe(false);
    expect(isProbe({ url: '/mcp?x=/healthz' })).toBe(false);
    expect(isProbe({})).toBe(false);
  });
});

describe('requestIdFor', () => {
  it('keeps a plain incoming id and replaces anything else with a UUID', () => {
    expect(requestIdFor('abc-123.def:4')).toBe('abc-123.def:4');
    for (const bad of [undefined, '', 'has space', 'x'.repeat(129), ['a', 'b'], 'new\nline']) {
      expect(requestIdFor(bad)).toMatch(
        /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      );
    }
  });
});

describe('redactLogLine', () => {
  const line = (value: unknown) => `${JSON.stringify(value)}\n`;
  const redacted = (value: unknown) => JSON.parse(redactLogLine(line(value))) as unknown;

  it('censors the Authorization, DPoP, Cookie and Proxy-Authorization headers in any letter case', () => {
    expect(
      redacted({
        headers: {
          Authorization: 'Bearer a',
          DPOP: 'proof',
          dpop: 'proof',
          'Proxy-Authorization': 'Basic b',
          COOKIE: 'sid=c',
          accept: 'application/json',
        },
      }),
    ).toEqual({
      headers: {
        Authorization: '[redacted]',
        DPOP: '[redacted]',
        dpop: '[redacted]',
        'Proxy-Authorization': '[redacted]',
        COOKIE: '[redacted]',
        accept: 'application/json',
      },
    });
  });

  it('censors token-bearing body parameters at any depth, in arrays too, and keeps the rest', () => {
    expect(
      redacted({
        Access_Token: 'a',
        body: {
          grant_type: 'authorization_code',
          Code: 'c',
          CODE_VERIFIER: 'v',
          nested: { Client_Secret: 's', list: [{ Refresh_Token: 'r', scope: 'notes' }] },
        },
      }),
    ).toEqual({
      Access_Token: '[redacted]',
      body: {
        grant_type: 'authorization_code',
        Code: '[redacted]',
        CODE_VERIFIER: '[redacted]',
        nested: { Client_Secret: '[redacted]', list: [{ Refresh_Token: '[redacted]', scope: 'notes' }] },
      },
    });
  });

  it('censors the query of every path or URL in the line, the message included', () => {
    expect(
      redacted({
        req: { url: '/token?Subject_Token=t&x=1' },
        location: 'https://client.example/cb?Code=c&state=s',
        msg: '/cb?ID_Token=i',
        note: 'a sentence? not a URL',
      }),
    ).toEqual({
      req: { url: '/token?Subject_Token=[redacted]&x=1' },
      location: 'https://client.example/cb?Code=[redacted]&state=s',
      msg: '/cb?ID_Token=[redacted]',
      note: 'a sentence? not a URL',
    });
  });

  it('censors the queries of URLs quoted inside a message or an error, wherever they stand', () => {
    expect(
      redacted({
        msg: 'upstream refused GET https://up.example/cb?state=s&Code=c1 with 400',
        err: { message: 'redirect to /cb?x=1&ACCESS_TOKEN=a2, then /done?%63ode=c3&ok=1 failed' },
      }),
    ).toEqual({
      msg: 'upstream refused GET https://up.example/cb?state=s&Code=[redacted] with 400',
      err: {
        // A comma is a query character: it goes with the value.
        message: 'redirect to /cb?x=1&ACCESS_TOKEN=[redacted] then /done?%63ode=[redacted]&ok=1 failed',
      },
    });
  });

  it('writes a line without secrets exactly as it was', () => {
    const plain = line({ level: 30, time: 1, msg: 'request completed', req: { url: '/healthz?verbose=1' } });
    expect(redactLogLine(plain)).toBe(plain);
    expect(redactLogLine('not json, token=x')).toBe('not json, token=x');
  });
});

describe('loggerParams', () => {
  /** A real request through the pino-http middleware the apps use, and whatever else is logged beside it. */
  async function logged(
    run: (logger: Logger, url: string, written: () => string) => Promise<void>,
  ): Promise<string> {
    const lines: string[] = [];
    const params = loggerParams({
      appName: 'test',
      level: 'info',
      destination: { write: (line: string) => void lines.push(line) },
    });
    const [options, destination] = params.pinoHttp as [PinoHttpOptions, DestinationStream];
    const middleware = pinoHttp(options, destination);
    const server = createServer((request, response) => {
      middleware(request, response);
      response.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      await run(middleware.logger, `http://127.0.0.1:${port}`, () => lines.join(''));
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    return lines.join('');
  }

  it('writes no secret of a request, a logged object or an error, whatever the case of its name', async () => {
    const output = await logged(async (logger, url, written) => {
      const response = await fetch(`${url}/api/notes?Access_Token=SECRET-1&Code=SECRET-2&state=visible`, {
        headers: { Authorization: 'Bearer SECRET-3', DPoP: 'SECRET-4' },
      });
      await response.text();
      // The completion line is written when the response finishes, possibly after the client has it.
      for (let i = 0; i < 100 && !written().includes('request completed'); i++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      logger.info({ body: { Client_Secret: 'SECRET-5', Refresh_Token: 'SECRET-6' } }, 'form');
      logger.child({ headers: { AUTHORIZATION: 'SECRET-7' }, Id_Token: 'SECRET-9' }).warn('child');
      logger.error({ err: Object.assign(new Error('failed'), { Subject_Token: 'SECRET-8' }) }, 'error');
    });
    expect(output).toContain('request completed');
    expect(output).toContain('/api/notes?Access_Token=[redacted]&Code=[redacted]&state=visible');
    expect(output).toContain('"message":"failed"');
    expect(output).not.toMatch(/SECRET-\d/);
  });
});
