import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Counts the token requests of each grant type the client makes. */
export function countingFetch(counts: Record<string, number>): typeof fetch {
  return async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (url.endsWith('/token') && typeof init?.body === 'string') {
      const grant = new URLSearchParams(init.body).get('grant_type') ?? '?';
      counts[grant] = (counts[grant] ?? 0) + 1;
    } else if (url.endsWith('/token') && init?.body instanceof URLSearchParams) {
      const grant = init.body.get('grant_type') ?? '?';
      counts[grant] = (counts[grant] ?? 0) + 1;
    }
    return fetch(input, init);
  };
}

/** The text parts of a tool result, joined. */
export function text(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content.map((part) => part.text ?? '').join('\n');
}

/** A client ID metadata document on loopback http: the development form, fetched by a loopback issuer only. */
export async function serveClientMetadata(
  redirectUris: readonly string[],
): Promise<{ url: string; server: Server; fetches: () => number }> {
  let count = 0;
  let url = '';
  const server = createServer((request, response) => {
    count += 1;
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({
        client_id: url,
        client_name: 'E2E metadata document client',
        redirect_uris: redirectUris,
        grant_types: ['authorization_code', 'refresh_token'],
        token_endpoint_auth_method: 'none',
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/e2e/client.json`;
  return { url, server, fetches: () => count };
}
