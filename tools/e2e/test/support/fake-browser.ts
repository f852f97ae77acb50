// The desktop's browser, as a real MCP client reaches it on Linux, replaced by a hand-off to the test: an executable
// `xdg-open` first on PATH, and the same program as $BROWSER (the `xdg-open` script the `open` package ships, and
// the system's, open a URL with $BROWSER when no desktop environment is running). Each URL a client "opens" is
// POSTed to a loopback listener of the test, which then drives the page with a headless user-agent.
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

export interface FakeBrowser {
  /** `PATH` and `BROWSER` for the client's environment. */
  readonly env: Readonly<Record<string, string>>;
  /** Every URL opened so far, in order. */
  readonly opened: readonly string[];
  /**
   * The next URL a client opens (one not yet taken). Rejects, with `context()` (the client's log) in the message,
   * after `timeoutMs`, or as soon as `unless` settles first (the client ended or connected without a browser).
   */
  nextUrl(options: { timeoutMs: number; context?: () => string; unless?: Promise<unknown> }): Promise<string>;
  close(): Promise<void>;
}

export async function startFakeBrowser(): Promise<FakeBrowser> {
  const opened: string[] = [];
  const waiting: ((url: string) => void)[] = [];
  let taken = 0;
  const server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      opened.push(body);
      response.writeHead(204).end();
      const waiter = waiting.shift();
      if (waiter) waiter(opened[taken++]!);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/opened`;
  const dir = await mkdtemp(join(tmpdir(), 'portcullis-browser-'));
  const opener = join(dir, 'open-url.mjs');
  await writeFile(
    opener,
    `const response = await fetch(${JSON.stringify(endpoint)}, { method: 'POST', body: process.argv[2] ?? '' });\n` +
      'process.exit(response.ok ? 0 : 1);\n',
  );
  const script = `#!/bin/sh\nexec ${shellQuote(process.execPath)} ${shellQuote(opener)} "$1"\n`;
  for (const name of ['xdg-open', 'browser']) {
    await writeFile(join(dir, name), script);
    await chmod(join(dir, name), 0o755);
  }
  return {
    env: { PATH: `${dir}${delimiter}${process.env['PATH'] ?? ''}`, BROWSER: join(dir, 'browser') },
    opened,
    nextUrl({ timeoutMs, context = () => '', unless }) {
      if (taken < opened.length) return Promise.resolve(opened[taken++]!);
      return new Promise((resolve, reject) => {
        const fail = (message: string) => {
          const index = waiting.indexOf(deliver);
          if (index < 0) return; // delivered already
          waiting.splice(index, 1);
          clearTimeout(timer);
          reject(new Error(`${message}\n${context()}`));
        };
        const deliver = (url: string) => {
          clearTimeout(timer);
          resolve(url);
        };
        const timer = setTimeout(() => fail(`no browser was opened within ${timeoutMs} ms`), timeoutMs);
        unless?.then(
          () => fail('the client finished without opening a browser'),
          (error: unknown) => fail(`the client failed without opening a browser: ${String(error)}`),
        );
        waiting.push(deliver);
      });
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(dir, { recursive: true, force: true });
    },
  };
}

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
