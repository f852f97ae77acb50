/**
 * Boots the real protected server (its AppModule, exactly as main.ts does) on a loopback port chosen before boot,
 * so its RESOURCE_URI, the URL its metadata announces and the URL tests reach are the same one, against a fresh
 * harness database.
 */
import { createServer } from 'node:net';
import { listen } from '@portcullis/platform';
import { startDatabase, type TestDatabase } from '@portcullis/testing';
import { AppModule } from '../../src/app.module.js';

export interface ProtectedServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** The canonical resource URI: `${url}/mcp`, the audience tokens must carry. */
  readonly resource: string;
  /** The MCP endpoint. */
  readonly mcpUrl: string;
  readonly database: TestDatabase;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (typeof address !== 'object' || address === null) throw new Error('no port');
  return address.port;
}

export async function startProtectedServer(options: {
  authorizationServer: string;
  env?: Record<string, string>;
  database?: TestDatabase;
}): Promise<ProtectedServer> {
  const database = options.database ?? (await startDatabase());
  const ownsDatabase = !options.database;
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const resource = `${url}/mcp`;
  try {
    const configured = AppModule.configure(
      {
        LOG_LEVEL: 'silent',
        NODE_ENV: 'test',
        RESOURCE_URI: resource,
        AUTHORIZATION_SERVER: options.authorizationServer,
        ...options.env,
        HOST: '127.0.0.1',
        PORT: String(port),
      },
      { database: database.target },
    );
    const running = await listen(configured.module, { host: '127.0.0.1', port });
    return {
      url,
      resource,
      mcpUrl: resource,
      database,
      close: async () => {
        await running.close();
        if (ownsDatabase) await database.stop();
      },
    };
  } catch (error) {
    if (ownsDatabase) await database.stop();
    throw error;
  }
}
