import { listen, type AppOverrides, type PortcullisAppModule } from '@portcullis/platform';
import { startDatabase, type TestDatabase } from './database.js';

export interface StartAppOptions {
  /** Environment variables the app sees (nothing is read from `process.env`). */
  env?: Record<string, string | undefined>;
  /** A harness database to share; by default the app gets a fresh one, stopped with it. */
  database?: TestDatabase;
  overrides?: Omit<AppOverrides, 'database'>;
  /** A fixed loopback port (see {@link freePort}), for apps whose configuration names their own URL. */
  port?: number;
  /**
   * Keep the app's log lines for {@link TestApp.logs} instead of discarding them; the level is then `info` unless
   * `env.LOG_LEVEL` says otherwise.
   */
  captureLogs?: boolean;
}

export interface TestApp {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly database: TestDatabase;
  /** Every log line the app wrote so far (JSON, one a line); empty unless started with `captureLogs`. */
  logs(): string;
  close(): Promise<void>;
}

/** Boots an app module on a random loopback port against a harness database, exactly as `main.ts` would. */
export async function startApp(
  appModule: PortcullisAppModule,
  options: StartAppOptions = {},
): Promise<TestApp> {
  const database = options.database ?? (await startDatabase());
  const ownsDatabase = !options.database;
  const lines: string[] = [];
  try {
    const configured = await appModule.configure(
      {
        LOG_LEVEL: options.captureLogs ? 'info' : 'silent',
        NODE_ENV: 'test',
        ...options.env,
        HOST: '127.0.0.1',
        PORT: String(options.port ?? 0),
      },
      {
        ...options.overrides,
        ...(options.captureLogs
          ? { logDestination: { write: (line: string) => void lines.push(line) } }
          : {}),
        database: database.target,
      },
    );
    const running = await listen(configured.module, { host: '127.0.0.1', port: options.port ?? 0 });
    return {
      url: running.url,
      database,
      logs: () => lines.join(''),
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

/** A loopback port nothing listens on right now, for an app that must know its URL before it starts. */
export async function freePort(): Promise<number> {
  // A port handed out is often bound only later (a fixture picks the proxy's port, then starts its upstream, which
  // picks its own): the system may offer the same free port twice meanwhile, so this process never takes one twice.
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = await unusedPort();
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error('no free port that this process has not handed out already');
}

const handedOut = new Set<number>();

async function unusedPort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
