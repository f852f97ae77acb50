/**
 * One Prometheus registry per app (`prom-client`), provided under {@link METRICS_REGISTRY} for the libraries that count
 * what they do, and served at `/metrics` in the Prometheus text format.
 *
 * @see https://prometheus.io/docs/instrumenting/exposition_formats/#text-based-format
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The injection token of an app's `prom-client` Registry. Libraries that cannot depend on this one (the resource
 * server is plugged into other apps) inject the same string.
 */
export const METRICS_REGISTRY = 'portcullis:metrics-registry';

/** Latency buckets, in seconds: a token request or a protected call takes milliseconds; a sign-in, a few hundred. */
export const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** A registry with the process metrics of Node.js (CPU, memory, event loop lag, handles, GC). */
export function createMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

/** The metric named `name` in `registry`, made by `create` the first time (one instance however many callers). */
export function metricIn<T>(registry: Registry, name: string, create: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? create();
}

/** `http_request_duration_seconds{method,route,status_code}`: every HTTP request, by route template. */
export function httpRequestDuration(registry: Registry): Histogram<'method' | 'route' | 'status_code'> {
  return metricIn(
    registry,
    'http_request_duration_seconds',
    () =>
      new Histogram({
        name: 'http_request_duration_seconds',
        help: 'HTTP requests by method, route (the template, not the path) and status, and how long they took',
        labelNames: ['method', 'route', 'status_code'],
        buckets: LATENCY_BUCKETS,
        registers: [registry],
      }),
  );
}

/** `portcullis_db_query_duration_seconds{operation,outcome}`: every statement made through Prisma. */
export function databaseQueryDuration(registry: Registry): Histogram<'operation' | 'outcome'> {
  return metricIn(
    registry,
    'portcullis_db_query_duration_seconds',
    () =>
      new Histogram({
        name: 'portcullis_db_query_duration_seconds',
        help: 'Database statements made through Prisma, by operation and outcome (ok or error), and how long they took',
        labelNames: ['operation', 'outcome'],
        buckets: LATENCY_BUCKETS,
        registers: [registry],
      }),
  );
}

/** `portcullis_db_pool_connections{state}` (open, idle, waiting, max), read when scraped. */
export function databasePool(
  registry: Registry,
  stats: () => { total: number; idle: number; waiting: number; max: number } | undefined,
): Gauge<'state'> {
  return metricIn(
    registry,
    'portcullis_db_pool_connections',
    () =>
      new Gauge({
        name: 'portcullis_db_pool_connections',
        help: 'The PostgreSQL connection pool: connections open, idle, requests waiting for one, and its size',
        labelNames: ['state'],
        registers: [registry],
        collect() {
          const now = stats();
          if (!now) return;
          this.set({ state: 'open' }, now.total);
          this.set({ state: 'idle' }, now.idle);
          this.set({ state: 'waiting' }, now.waiting);
          this.set({ state: 'max' }, now.max);
        },
      }),
  );
}

/** A counter in `registry`, made the first time it is asked for. */
export function counterIn<L extends string>(
  registry: Registry,
  name: string,
  help: string,
  labelNames: readonly L[],
): Counter<L> {
  return metricIn(registry, name, () => new Counter({ name, help, labelNames, registers: [registry] }));
}
