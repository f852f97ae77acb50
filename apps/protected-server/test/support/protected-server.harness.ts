/**
 * Boots the real protected server (its AppModule, exactly as main.ts does) on a loopback port chosen before boot,
 * so its RESOURCE_URI, the URL its metadata announces and the URL tests reach are the same one, against a fresh
 * harness database.
 */
import { freePort, startApp, type TestDatabase } from '@portcullis/testing';
import { AppModule } from '../../src/app.module.js';

export interface ProtectedServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** The canonical resource URI: `${url}/mcp`, the audience tokens must carry. */
  readonly resource: string;
  /** The MCP endpoint. */
  readonly mcpUrl: string;
  readonly database: TestDatabase;
  /** The app's log lines so far; empty unless started with `captureLogs`. */
  logs(): string;
  close(): Promise<void>;
}

export async function startProtectedServer(options: {
  authorizationServer: string;
  env?: Record<string, string>;
  database?: TestDatabase;
  captureLogs?: boolean;
}): Promise<ProtectedServer> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const resource = `${url}/mcp`;
  const app = await startApp(AppModule, {
    port,
    ...(options.database ? { database: options.database } : {}),
    ...(options.captureLogs ? { captureLogs: true } : {}),
    env: { RESOURCE_URI: resource, AUTHORIZATION_SERVER: options.authorizationServer, ...options.env },
  });
  return {
    url,
    resource,
    mcpUrl: resource,
    database: app.database,
    logs: () => app.logs(),
    close: () => app.close(),
  };
}
