import { Controller, Get, Headers, Inject, Res } from '@nestjs/common';
import { constantTimeEqual } from '@portcullis/protocol';
import type { FastifyReply } from 'fastify';
import type { Registry } from 'prom-client';
import { METRICS_REGISTRY } from './metrics.js';

/** Injection token of the bearer token `/metrics` requires (`METRICS_TOKEN`), or undefined for none. */
export const METRICS_TOKEN = 'portcullis:metrics-token';

/**
 * `GET /metrics`: the app's metrics in the Prometheus text format. With `METRICS_TOKEN` set, only a request with
 * `Authorization: Bearer <that token>` gets them (401 with a Bearer challenge otherwise, RFC 6750 3); production
 * refuses to boot without one unless `METRICS=off`.
 *
 * @see https://prometheus.io/docs/instrumenting/exposition_formats/#text-based-format
 */
@Controller()
export class MetricsController {
  readonly #token: string | undefined;

  constructor(
    @Inject(METRICS_REGISTRY) private readonly registry: Registry,
    @Inject(METRICS_TOKEN) token: string | undefined,
  ) {
    this.#token = token;
  }

  @Get('metrics')
  async metrics(
    @Headers('authorization') authorization: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string> {
    reply.header('cache-control', 'no-store');
    if (this.#token) {
      const presented = /^Bearer ([\x21-\x7e]+)$/i.exec(authorization ?? '')?.[1];
      if (presented === undefined || !constantTimeEqual(presented, this.#token)) {
        reply
          .status(401)
          .header('www-authenticate', 'Bearer realm="metrics"')
          .type('text/plain; charset=utf-8');
        return 'metrics require the bearer token set as METRICS_TOKEN\n';
      }
    }
    reply.type(this.registry.contentType);
    return this.registry.metrics();
  }
}
