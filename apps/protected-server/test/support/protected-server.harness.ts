/**
 * Boots the real protected server (its AppModule, exactly as main.ts does) on a loopback port chosen before boot,
 * so its RESOURCE_URI, the URL its metadata announces and the URL tests reach are the same one, against a fresh
 * harness database.
 */
import type { ExtensionRegistry } from '@portcullis/extensions';
import type { PortcullisAppModule } from '@portcullis/platform';
import { freePort, startApp, type TestDatabase } from '@portcullis/testing';
import { AppModule } from '../../src/app.module.js';
import { McpKeptAnswersHook } from '../../src/mcp/mcp-kept-answers.hook.js';
import { McpEndpoint } from '../../src/mcp/mcp-endpoint.service.js';

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
  /** How many `tools/list` requests were answered again from the SDK's kept answer (list-answers.ts). */
  listAnswersGivenAgain(): number;
  /** How many of those the route's hook gave, before Nest's router (mcp-kept-answers.hook.ts). */
  keptAnswersFromHook(): number;
  close(): Promise<void>;
}

export async function startProtectedServer(options: {
  authorizationServer: string;
  env?: Record<string, string>;
  database?: TestDatabase;
  captureLogs?: boolean;
  /** Extensions for the resource server (PRM members, challenge parameters): see {@link appWithExtensions}. */
  extensions?: ExtensionRegistry;
}): Promise<ProtectedServer> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const resource = `${url}/mcp`;
  const app = await startApp(options.extensions ? appWithExtensions(options.extensions) : AppModule, {
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
    listAnswersGivenAgain: () => app.nest.get(McpEndpoint).listAnswersGivenAgain,
    keptAnswersFromHook: () => app.nest.get(McpKeptAnswersHook).answered,
    close: () => app.close(),
  };
}

/**
 * The real AppModule, configured from its environment as main.ts does, with `extensions` a test composed added by
 * its entry point to what `EXTENSIONS` names (the way a custom entry point adds its own).
 */
export function appWithExtensions(extensions: ExtensionRegistry): PortcullisAppModule {
  return { configure: (env, overrides) => AppModule.configure(env, overrides, { extensions }) };
}
