import type { FastifyRequest } from 'fastify';

/**
 * The request body exactly as received: the platform keeps it (`rawBody: true` in its Fastify bootstrap) so that
 * forms are parsed by `RequestParameters`, which sees repeated and malformed parameters that a parsed object hides.
 */
export function rawBody(request: FastifyRequest): Buffer | undefined {
  return (request as FastifyRequest & { rawBody?: Buffer }).rawBody;
}
