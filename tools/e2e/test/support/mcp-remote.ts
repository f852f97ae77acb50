// mcp-remote (npm `mcp-remote`, pinned in the root package.json), the stdio bridge many desktop MCP clients run to
// reach a remote server, started as they start it (a command with the server URL) and spoken to over stdio by the
// official MCP client SDK. It does its own OAuth: discovery, dynamic registration, PKCE, a loopback callback
// listener, and "opens the browser" with the `open` package (xdg-open on Linux), which the fake browser answers.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { FakeBrowser } from './fake-browser.js';

const MCP_REMOTE = fileURLToPath(
  new URL('../../../../node_modules/mcp-remote/dist/proxy.js', import.meta.url),
);

export interface McpRemote {
  readonly client: Client;
  /** The connection: resolves once mcp-remote has its token and the MCP handshake is done. */
  readonly connected: Promise<void>;
  /** Everything mcp-remote wrote to stderr (its log). */
  stderr(): string;
  /** Ends the session and the process (SIGTERM, then SIGKILL). */
  close(): Promise<void>;
}

/**
 * Starts `mcp-remote <serverUrl> <callbackPort>` with its configuration and tokens under `configDir`
 * (`MCP_REMOTE_CONFIG_DIR`, nothing in the user's home) and the fake browser on PATH, and connects to it.
 */
export function startMcpRemote(options: {
  serverUrl: string;
  callbackPort: number;
  configDir: string;
  browser: FakeBrowser;
}): McpRemote {
  let log = '';
  const transport = new StdioClientTransport({
    command: process.execPath,
    // A slow machine signs in (argon2id) well within 120 s; mcp-remote's default wait for the callback is 30 s.
    args: [MCP_REMOTE, options.serverUrl, String(options.callbackPort), '--auth-timeout', '120'],
    env: {
      ...options.browser.env,
      HOME: options.configDir,
      MCP_REMOTE_CONFIG_DIR: join(options.configDir, 'mcp-auth'),
    },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString('utf8')));
  const client = new Client({ name: 'portcullis-e2e-desktop-client', version: '1.0.0' });
  const connected = client.connect(transport, { timeout: 180_000 });
  connected.catch(() => undefined);
  return {
    client,
    connected,
    stderr: () => log,
    close: () => client.close(),
  };
}
