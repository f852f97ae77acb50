import { afterEach, describe, expect, it } from '@jest/globals';
import { startServer, type RunningServer } from '../../test/support/http-server.js';
import {
  isResourceUrl,
  sendToResource,
  toReplayableRequest,
  type ResourceCredentials,
} from './resource-request.js';

interface Seen {
  readonly server: string;
  readonly method: string;
  readonly url: string;
  readonly authorization: string | undefined;
  readonly dpop?: string | undefined;
  readonly body: string;
}

describe('sending requests to the protected resource (MCP "Token Requirements", RFC 6750 Section 2.1)', () => {
  const servers: RunningServer[] = [];
  const seen: Seen[] = [];
  afterEach(async () => {
    seen.length = 0;
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });

  /** A server that records requests and redirects `/go` to wherever `?to=` says, with `?status=`. */
  async function recorder(name: string): Promise<RunningServer> {
    const server = await startServer((request, response, body) => {
      const url = new URL(request.url ?? '/', 'http://x');
      seen.push({
        server: name,
        method: request.method ?? '',
        url: request.url ?? '',
        authorization: request.headers.authorization,
        ...(request.headers['dpop'] === undefined ? {} : { dpop: String(request.headers['dpop']) }),
        body,
      });
      if (url.pathname.endsWith('/go')) {
        response
          .writeHead(Number(url.searchParams.get('status') ?? '307'), {
            location: url.searchParams.get('to') ?? '/',
          })
          .end();
        return;
      }
      response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
    servers.push(server);
    return server;
  }

  it('puts the token in the Authorization header and never in the URL', async () => {
    const resource = await recorder('resource');
    const request = await toReplayableRequest(`${resource.url}/mcp?x=1`, { method: 'POST', body: '{"a":1}' });

    const response = await sendToResource(fetch, request, `${resource.url}/mcp`, 'token-value');

    expect(response.status).toBe(200);
    expect(seen).toEqual([
      {
        server: 'resource',
        method: 'POST',
        url: '/mcp?x=1',
        authorization: 'Bearer token-value',
        body: '{"a":1}',
      },
    ]);
  });

  it('keeps the token on a same-origin redirect within the resource and replays the body on 307', async () => {
    const resource = await recorder('resource');
    const request = await toReplayableRequest(`${resource.url}/mcp/go?to=/mcp/next`, {
      method: 'POST',
      body: 'payload',
    });

    await sendToResource(fetch, request, `${resource.url}/mcp`, 'token-value');

    expect(seen.map((entry) => [entry.url, entry.method, entry.authorization, entry.body])).toEqual([
      ['/mcp/go?to=/mcp/next', 'POST', 'Bearer token-value', 'payload'],
      ['/mcp/next', 'POST', 'Bearer token-value', 'payload'],
    ]);
  });

  it('drops the token on a redirect to another origin, and does not put it back when redirected home again', async () => {
    const resource = await recorder('resource');
    const elsewhere = await recorder('elsewhere');
    const back = encodeURIComponent(`${resource.url}/mcp`);
    const request = await toReplayableRequest(
      `${resource.url}/mcp/go?to=${encodeURIComponent(`${elsewhere.url}/go?to=${back}`)}`,
      { method: 'GET', headers: { authorization: 'Bearer caller-set' } },
    );

    await sendToResource(fetch, request, `${resource.url}/mcp`, 'token-value');

    expect(seen.map((entry) => [entry.server, entry.authorization])).toEqual([
      ['resource', 'Bearer token-value'],
      ['elsewhere', undefined],
      ['resource', undefined],
    ]);
  });

  it("signs a proof per hop with the hop's method and URL, and drops the token and the proof on a redirect to another origin (RFC 9449 7.1)", async () => {
    const resource = await recorder('resource');
    const elsewhere = await recorder('elsewhere');
    const request = await toReplayableRequest(
      `${resource.url}/mcp/go?to=${encodeURIComponent(`/mcp/go?status=303&to=${encodeURIComponent(`${elsewhere.url}/x`)}`)}`,
      { method: 'POST', body: '{}', headers: { dpop: 'caller-set' } },
    );
    const hops: string[] = [];
    const received: number[] = [];
    const credentials: ResourceCredentials = {
      headerNames: ['authorization', 'dpop'],
      headersFor: async (method, url) => {
        hops.push(`${method} ${url.pathname}`);
        return { authorization: 'DPoP token-value', dpop: `proof-${hops.length}` };
      },
      received: (_url, response) => received.push(response.status),
    };

    await sendToResource(fetch, request, `${resource.url}/mcp`, credentials);

    expect(hops).toEqual(['POST /mcp/go', 'POST /mcp/go']);
    expect(seen.map((entry) => [entry.server, entry.method, entry.authorization, entry.dpop])).toEqual([
      ['resource', 'POST', 'DPoP token-value', 'proof-1'],
      ['resource', 'POST', 'DPoP token-value', 'proof-2'],
      ['elsewhere', 'GET', undefined, undefined],
    ]);
    expect(received).toEqual([307, 303]);
  });

  it('drops the token on a same-origin redirect out of the resource path', async () => {
    const resource = await recorder('resource');
    const request = await toReplayableRequest(`${resource.url}/mcp/go?to=/admin`, { method: 'GET' });

    await sendToResource(fetch, request, `${resource.url}/mcp`, 'token-value');

    expect(seen.map((entry) => [entry.url, entry.authorization])).toEqual([
      ['/mcp/go?to=/admin', 'Bearer token-value'],
      ['/admin', undefined],
    ]);
  });

  it('continues a POST as a body-less GET after a 303', async () => {
    const resource = await recorder('resource');
    const request = await toReplayableRequest(`${resource.url}/mcp/go?to=/mcp/result&status=303`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });

    await sendToResource(fetch, request, `${resource.url}/mcp`, 'token-value');

    expect(seen.map((entry) => [entry.method, entry.body])).toEqual([
      ['POST', '{}'],
      ['GET', ''],
    ]);
  });

  it("returns the redirect itself when the caller asked for redirect: 'manual'", async () => {
    const resource = await recorder('resource');
    const request = await toReplayableRequest(`${resource.url}/mcp/go?to=/elsewhere`, { redirect: 'manual' });

    const response = await sendToResource(fetch, request, `${resource.url}/mcp`, 'token-value');

    expect(response.status).toBe(307);
    expect(seen).toHaveLength(1);
  });

  it.each([
    ['http://127.0.0.1:1/mcp', 'http://127.0.0.1:1/mcp', true],
    ['http://127.0.0.1:1/mcp/sub', 'http://127.0.0.1:1/mcp', true],
    ['http://127.0.0.1:1/mcpx', 'http://127.0.0.1:1/mcp', false],
    ['http://127.0.0.1:2/mcp', 'http://127.0.0.1:1/mcp', false],
    ['https://127.0.0.1:1/mcp', 'http://127.0.0.1:1/mcp', false],
    ['http://127.0.0.1:1/anything', 'http://127.0.0.1:1', true],
  ])('treats %s as part of the resource %s: %s', (url, resource, expected) => {
    expect(isResourceUrl(new URL(url), resource)).toBe(expected);
  });
});
