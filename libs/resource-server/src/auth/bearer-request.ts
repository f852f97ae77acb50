/**
 * The parts of an HTTP request the bearer rules read. A Fastify request (what Nest hands guards on the Fastify
 * platform) has this shape; `raw.rawHeaders` is Node's unmerged header list.
 */
export interface BearerRequest {
  readonly method?: string;
  readonly url?: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly query?: unknown;
  readonly body?: unknown;
  readonly raw?: { readonly rawHeaders?: readonly string[] };
}

/** Whether `value` is a plain object (a parsed query string or form body), not an array or a primitive. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
