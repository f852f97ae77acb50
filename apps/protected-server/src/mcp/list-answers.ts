/**
 * The SDK's answers to stateless (2026-07-28) `tools/list` requests, kept by the request's shape and given again to a
 * request of the same shape without the SDK's per-request machinery (a WHATWG Request made of the Node one, the
 * classification, a new server instance and its transport, a Response streamed back): the list is the same for every
 * request to one server definition, and that machinery cost over ten times the app's `/healthz` per request.
 *
 * The SDK stays the only judge of what a request gets: an answer is kept only when the SDK answered 200 with JSON,
 * and given again only to a request identical in everything the SDK reads or could read (the method, every header but
 * the credentials and per-request ids, the token's scopes and resource, the body but its JSON-RPC `id`), with that
 * `id` put in. A request of any other shape (another protocol revision, client capabilities or `Accept`, a scope
 * missing: the SDK's scope challenge, a `_meta` the SDK refuses) goes to the SDK, and its answer, when not a 200 with
 * JSON, is never kept.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';

/** Headers that vary per request or per credential and that the SDK does not read: left out of a request's shape. */
const NOT_SHAPE = new Set([
  'authorization',
  'dpop',
  'content-length',
  'cookie',
  'x-request-id',
  'traceparent',
  'tracestate',
  'x-forwarded-for',
]);

/** What of the validated token enters a request's shape: what the SDK's scope challenge and the server read. */
export interface ShapeAuth {
  readonly scopes: readonly string[];
  readonly resource?: URL | string | undefined;
}

type JsonRpcId = string | number;

/** A kept answer: its status and headers, and its body split around the `id`. */
interface Kept {
  readonly headers: Readonly<Record<string, string>>;
  // The body's UTF-8 bytes before and after the id, encoded once rather than on every answer.
  readonly before: Buffer;
  readonly after: Buffer;
}

export class ListAnswers {
  readonly #kept = new Map<string, Kept>();
  /** A value no request sends as its id: where the id goes in a kept body. */
  readonly #placeholder = `portcullis-id-${randomBytes(16).toString('hex')}`;
  #hits = 0;

  constructor(private readonly capacity = 64) {}

  /** Answers given again so far (tests and benchmarks). */
  get hits(): number {
    return this.#hits;
  }

  /**
   * The shape of a request the cache may answer: a POST of a single JSON-RPC `tools/list` request with a string or
   * number id; undefined for anything else.
   */
  shapeOf(
    method: string | undefined,
    headers: IncomingHttpHeaders,
    body: unknown,
    auth: ShapeAuth | undefined,
  ): string | undefined {
    if (method !== 'POST' || auth === undefined || !isListRequest(body)) return undefined;
    const { id: _id, ...rest } = body;
    const names = Object.keys(headers)
      .filter((name) => !NOT_SHAPE.has(name))
      .sort();
    return JSON.stringify([
      names.map((name) => [name, headers[name]]),
      [...auth.scopes].sort(),
      auth.resource === undefined ? null : String(auth.resource),
      rest,
    ]);
  }

  /** Whether an answer is kept for `shape`. */
  has(shape: string): boolean {
    return this.#kept.has(shape);
  }

  /** Writes the kept answer for `shape` with `id` put in; false when none is kept. */
  answer(shape: string, id: JsonRpcId, response: ServerResponse): boolean {
    const kept = this.#kept.get(shape);
    if (!kept) return false;
    const body = Buffer.concat([kept.before, Buffer.from(JSON.stringify(id)), kept.after]);
    response.writeHead(200, { ...kept.headers, 'content-length': String(body.length) });
    response.end(body);
    this.#hits += 1;
    return true;
  }

  /** Keeps the SDK's `response` to a request of `shape` with `id`, when it is a 200 with a JSON-RPC result for `id`. */
  async keep(shape: string, id: JsonRpcId, response: Response): Promise<void> {
    if (response.status !== 200) return;
    const type = response.headers.get('content-type') ?? '';
    if (!/^application\/json\b/i.test(type)) return;
    let message: unknown;
    try {
      message = JSON.parse(await response.clone().text());
    } catch {
      return;
    }
    if (!isResultFor(message, id)) return;
    const text = JSON.stringify({ ...message, id: this.#placeholder });
    const marker = JSON.stringify(this.#placeholder);
    const at = text.indexOf(marker);
    // The placeholder occurs once, as the id; were it anywhere else, nothing is kept.
    if (at < 0 || text.indexOf(marker, at + marker.length) >= 0) return;
    const headers: Record<string, string> = {};
    for (const [name, value] of response.headers) if (name !== 'content-length') headers[name] = value;
    if (this.#kept.size >= this.capacity) {
      const oldest = this.#kept.keys().next().value;
      if (oldest !== undefined) this.#kept.delete(oldest);
    }
    this.#kept.set(shape, {
      headers,
      before: Buffer.from(text.slice(0, at)),
      after: Buffer.from(text.slice(at + marker.length)),
    });
  }
}

function isListRequest(
  body: unknown,
): body is { id: JsonRpcId; method: 'tools/list' } & Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const message = body as Record<string, unknown>;
  return (
    message['jsonrpc'] === '2.0' &&
    message['method'] === 'tools/list' &&
    (typeof message['id'] === 'string' ||
      (typeof message['id'] === 'number' && Number.isFinite(message['id'])))
  );
}

function isResultFor(message: unknown, id: JsonRpcId): message is Record<string, unknown> {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return false;
  const record = message as Record<string, unknown>;
  return record['jsonrpc'] === '2.0' && record['id'] === id && 'result' in record && !('error' in record);
}
