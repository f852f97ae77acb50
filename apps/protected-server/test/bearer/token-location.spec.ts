import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { bearerChallengeOf, countNotes, modernMessage, postMcp } from '../support/mcp-requests.js';
import { startProtectedServer, type ProtectedServer } from '../support/protected-server.harness.js';
import { startTestAuthorizationServer, type TestAuthorizationServer } from '@portcullis/testing';

/** Sends a raw HTTP/1.1 request, so header bytes fetch would refuse to send reach the server; returns the status. */
function rawStatus(url: string, path: string, authorization: string): Promise<number> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let received = '';
    socket.setTimeout(10_000, () => socket.destroy(new Error('timed out')));
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => {
      const status = /^HTTP\/1\.1 (\d{3})/.exec(received)?.[1];
      if (status) resolve(Number(status));
      else reject(new Error(`no status line in ${JSON.stringify(received.slice(0, 80))}`));
    });
    socket.end(
      Buffer.concat([
        Buffer.from(`GET ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: `, 'latin1'),
        Buffer.from(authorization, 'utf8'),
        Buffer.from('\r\nConnection: close\r\n\r\n', 'latin1'),
      ]),
    );
  });
}

describe('where the access token may be sent (MCP "Token Requirements", RFC 6750 Section 2)', () => {
  let as: TestAuthorizationServer;
  let app: ProtectedServer;
  let token: string;

  beforeAll(async () => {
    as = await startTestAuthorizationServer({ audience: 'set per token' });
    app = await startProtectedServer({ authorizationServer: as.issuer });
    token = await as.mint({ claims: { aud: app.resource, scope: 'notes' } });
  });
  afterAll(async () => {
    await app?.close();
    await as?.close();
  });

  const create = modernMessage('tools/call', {
    name: 'notes_create',
    arguments: { title: 'must not exist' },
  });

  it('refuses ?access_token= with 400 invalid_request, alone or beside the header, and persists nothing', async () => {
    for (const withHeader of [false, true]) {
      const response = await postMcp(app, create, {
        query: `?access_token=${token}`,
        ...(withHeader ? { token } : {}),
      });
      expect(response.status).toBe(400);
      expect(bearerChallengeOf(response).params['error']).toBe('invalid_request');
      expect(((await response.json()) as { error: string }).error).toBe('invalid_request');
    }
    expect(await countNotes(app)).toBe(0);
  });

  it('refuses a token in the header and in a form body with 400 invalid_request', async () => {
    const response = await fetch(app.mcpUrl, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ access_token: token }).toString(),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toBe('invalid_request');
  });

  it('refuses a token in the header and in the JSON body with 400 invalid_request, and persists nothing', async () => {
    const response = await postMcp(app, { ...create, access_token: token }, { token });
    expect(response.status).toBe(400);
    expect(await countNotes(app)).toBe(0);
  });

  it('refuses a token in the query string of the REST route too', async () => {
    const response = await fetch(`${app.url}/api/notes?access_token=${token}`);
    expect(response.status).toBe(400);
  });

  it('never answers 500 to an arbitrary Authorization header', async () => {
    const headerValue = fc
      .oneof(
        fc.string({ maxLength: 200 }),
        fc.string({ unit: 'binary', maxLength: 200 }),
        fc.string({ maxLength: 200 }).map((rest) => `Bearer ${rest}`),
        fc.stringMatching(/^[A-Za-z0-9\-._~+/]{1,400}={0,2}$/).map((rest) => `Bearer ${rest}`),
      )
      // CR and LF would end the header line; everything else is sent as is.
      .filter((value) => !/[\r\n]/.test(value));
    await fc.assert(
      fc.asyncProperty(headerValue, fc.constantFrom('/mcp', '/api/notes'), async (authorization, path) => {
        const status = await rawStatus(app.url, path, authorization);
        expect([400, 401]).toContain(status);
      }),
      { numRuns: 150 },
    );
    expect(await countNotes(app)).toBe(0);
  });
});
