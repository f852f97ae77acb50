import { listen, type AppOverrides, type PortcullisAppModule, type RunningApp } from '@portcullis/platform';
import { startDatabase, type TestDatabase } from './database.js';

export interface StartAppOptions {
  /** Environment variables the app sees (nothing is read from `process.env`). */
  env?: Record<string, string | undefined>;
  /** A harness database to share; by default the app gets a fresh one, stopped with it. */
  database?: TestDatabase;
  overrides?: Omit<AppOverrides, 'database'>;
  /** A fixed loopback port (see `freePort`), for apps whose configuration names their own URL. */
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
  /** The running Nest application, for a test that reads a provider's state (`nest.get(Provider)`). */
  readonly nest: RunningApp['app'];
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
    const running = await listen(configured.module, {
      host: '127.0.0.1',
      port: options.port ?? 0,
      trustProxy: configured.trustProxy,
    });
    return {
      url: running.url,
      database,
      nest: running.app,
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
