/**
 * The timed path's HTTP client: an undici `Pool` per origin, keep-alive, as many connections as workers and one
 * request per connection at a time (`pipelining: 1`), so a closed-loop worker always has a warm connection of its
 * own. Answers are read as raw status, headers and text: no cookie jar, no HTML, no redirect following; a redirect's
 * `Location` is read and its body discarded.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { Pool } from 'undici';

/** An answer as the timed path reads it. */
export interface Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
}

/** One origin's pool; paths are relative to the base URL's path (an issuer with a path keeps it). */
export class PoolClient {
  readonly #pool: Pool;
  readonly #prefix: string;

  constructor(base: string, connections: number) {
    const url = new URL(base);
    this.#pool = new Pool(url.origin, { connections, pipelining: 1, keepAliveTimeout: 60_000 });
    this.#prefix = url.pathname.replace(/\/$/, '');
  }

  /** A request and its whole answer as text. */
  async send(
    method: 'GET' | 'POST',
    path: string,
    headers: Record<string, string> = {},
    body?: string,
  ): Promise<Answer> {
    const response = await this.#pool.request({
      method,
      path: this.#prefix + path,
      headers,
      ...(body === undefined ? {} : { body }),
    });
    return { status: response.statusCode, headers: response.headers, text: await response.body.text() };
  }

  /** A GET expected to redirect: the status and the `Location` header only (the body is discarded unread). */
  async location(
    path: string,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; location?: string }> {
    const response = await this.#pool.request({ method: 'GET', path: this.#prefix + path, headers });
    await response.body.dump();
    const location = response.headers['location'];
    return {
      status: response.statusCode,
      ...(typeof location === 'string' ? { location } : {}),
    };
  }

  /** An `application/x-www-form-urlencoded` POST (RFC 6749 3.2: the token endpoint's request). */
  postForm(
    path: string,
    params: Record<string, string | undefined>,
    headers: Record<string, string> = {},
  ): Promise<Answer> {
    const form = new URLSearchParams();
    for (const [name, value] of Object.entries(params)) if (value !== undefined) form.append(name, value);
    return this.send(
      'POST',
      path,
      { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      form.toString(),
    );
  }

  close(): Promise<void> {
    return this.#pool.close();
  }
}

/** The JSON object of an answer that must be 200; throws naming `what` otherwise. */
export function okJson(answer: Answer, what: string): Record<string, unknown> {
  if (answer.status !== 200)
    throw new Error(`${what} answered ${answer.status}: ${answer.text.slice(0, 300)}`);
  return JSON.parse(answer.text) as Record<string, unknown>;
}

/** RFC 6749 2.3.1 `client_secret_basic`. */
export function basicAuthorization(clientId: string, secret: string | undefined): Record<string, string> {
  const credentials = `${encodeURIComponent(clientId)}:${encodeURIComponent(secret ?? '')}`;
  return { authorization: `Basic ${Buffer.from(credentials).toString('base64')}` };
}
