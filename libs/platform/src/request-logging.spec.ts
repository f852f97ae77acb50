import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import Fastify, { type FastifyInstance } from 'fastify';
import { PinoLogger } from 'nestjs-pino';
import type { DestinationStream } from 'pino';
import { pinoHttp, type Options as PinoHttpOptions } from 'pino-http';
import { loggerParams, requestIdFor } from './logging.js';
import { registerRequestLogging } from './request-logging.js';

/** The parsed lines of `written` that carry `requestId`. */
function linesOf(written: string[], requestId: string): Record<string, unknown>[] {
  return written
    .join('')
    .split('\n')
    .filter((line) => line.includes(requestId))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** Waits until `written` holds a completion line for `requestId` (written once the answer is sent). */
async function completion(written: string[], requestId: string): Promise<Record<string, unknown>> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const line = linesOf(written, requestId).find((entry) => /^request /.test(String(entry['msg'])));
    if (line) return line;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`no completion line for ${requestId}`);
}

/** A line without the fields that differ from one request to the next. */
function stable(line: Record<string, unknown>): Record<string, unknown> {
  const { time: _time, responseTime, ...rest } = line;
  expect(typeof responseTime).toBe('number');
  return rest;
}

describe('registerRequestLogging', () => {
  const written: string[] = [];
  const params = loggerParams({
    appName: 'test',
    level: 'info',
    destination: { write: (line: string) => void written.push(line) },
  });
  let fastify: FastifyInstance;
  let url: string;

  beforeAll(async () => {
    const context = new PinoLogger(params);
    fastify = Fastify({ genReqId: (req) => requestIdFor(req.headers['x-request-id']) });
    registerRequestLogging(fastify, context);
    fastify.get('/hello', async () => ({ ok: true }));
    // A body read from the socket before the handler runs: the context must survive it.
    fastify.post('/form', async (request) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      context.warn({ received: Object.keys(request.body as object) }, 'inside the handler');
      return { ok: true };
    });
    fastify.get('/healthz', async () => ({ status: 'ok' }));
    fastify.get('/unavailable', async (_request, reply) => reply.code(503).send({ error: 'down' }));
    url = await fastify.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await fastify.close();
  });

  it("writes the completion line pino-http's middleware writes, field for field", async () => {
    // The same request through pino-http's own middleware, with the same options.
    const reference: string[] = [];
    const [options] = params.pinoHttp as [PinoHttpOptions, DestinationStream];
    const middleware = pinoHttp(options, { write: (line: string) => void reference.push(line) });
    const server = createServer((request, response) => {
      middleware(request, response);
      response.setHeader('content-type', 'application/json; charset=utf-8');
      response.end('{"ok":true}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const referenceUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const requestId = 'same-request-1';
      const query = '/hello?state=kept&Code=SECRET-1';
      await (await fetch(`${referenceUrl}${query}`, { headers: { 'x-request-id': requestId } })).text();
      await (await fetch(`${url}${query}`, { headers: { 'x-request-id': requestId } })).text();
      const expected = stable(await completion(reference, requestId));
      const actual = stable(await completion(written, requestId));
      expect(actual).toEqual(expected);
      expect(actual).toMatchObject({
        level: 30,
        name: 'test',
        msg: 'request completed',
        req: { id: requestId, method: 'GET', url: '/hello?state=kept&Code=[redacted]' },
        res: { statusCode: 200 },
      });
      expect(written.join('')).not.toContain('SECRET-1');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('binds the request to every line logged while it is served, across the body being read', async () => {
    const requestId = 'in-context-1';
    const response = await fetch(`${url}/form`, {
      method: 'POST',
      headers: { 'x-request-id': requestId, 'content-type': 'application/json' },
      body: JSON.stringify({ note: 'x' }),
    });
    expect(response.status).toBe(200);
    await completion(written, requestId);
    const inside = linesOf(written, requestId).find((line) => line['msg'] === 'inside the handler');
    expect(inside).toMatchObject({
      level: 40,
      received: ['note'],
      req: { id: requestId, method: 'POST', url: '/form', remoteAddress: '127.0.0.1' },
    });
  });

  it('writes a 5xx answer as an error, and no completion line for a probe', async () => {
    const failedId = 'unavailable-1';
    expect((await fetch(`${url}/unavailable`, { headers: { 'x-request-id': failedId } })).status).toBe(503);
    expect(await completion(written, failedId)).toMatchObject({
      level: 50,
      msg: 'request errored',
      res: { statusCode: 503 },
      err: { message: 'failed with status code 503' },
    });

    const probeId = 'healthz-probe-1';
    expect((await fetch(`${url}/healthz`, { headers: { 'x-request-id': probeId } })).status).toBe(200);
    // A request after the probe, on the same logger: once its line is written, the probe's would have been too.
    const laterId = 'later-request-1';
    await (await fetch(`${url}/hello`, { headers: { 'x-request-id': laterId } })).text();
    await completion(written, laterId);
    expect(linesOf(written, probeId)).toEqual([]);
  });
});
