import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';

/**
 * Hands the reply's raw response over to a writer outside Fastify (the MCP SDK, a kept `tools/list` answer): the
 * headers Fastify hooks set (X-Request-Id, CORS) live on the reply until it is sent, so they are copied onto the raw
 * response before Fastify lets go of it.
 */
export function handOverResponse(reply: FastifyReply): ServerResponse {
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value !== undefined) reply.raw.setHeader(name, value);
  }
  reply.hijack();
  return reply.raw;
}
