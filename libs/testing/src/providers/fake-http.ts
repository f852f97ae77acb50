// What the provider fakes answer with: redirects, small HTML pages and bodies, never cached.
import type { ServerResponse } from 'node:http';

/** A 302 to `target` with `params` (those set) added to its query. */
export function redirect(
  response: ServerResponse,
  target: string,
  params: Record<string, string | undefined>,
): void {
  const url = new URL(target);
  for (const [name, value] of Object.entries(params))
    if (value !== undefined) url.searchParams.set(name, value);
  response.writeHead(302, { location: url.href });
  response.end();
}

/** A minimal HTML page whose title and heading are `title` (escaped) and whose body is `body` (as given). */
export function page(response: ServerResponse, status: number, title: string, body: string): void {
  send(
    response,
    status,
    'text/html; charset=utf-8',
    `<!doctype html><html><head><title>${escape(title)}</title></head><body><h1>${escape(title)}</h1>${body}</body></html>`,
  );
}

export function send(response: ServerResponse, status: number, type: string, body: string): void {
  response.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
  response.end(body);
}

/** HTML-escapes `text`. */
export function escape(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}
