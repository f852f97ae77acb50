// The real protected server (apps/protected-server, booted exactly as its main.ts does) accepting the proxy's
// tokens, behind a recording forwarder: its resource URI is the forwarder's, so every request a client makes to
// it, and every token in it, is on record.
import { startApp, type TestApp } from '@portcullis/testing';
// The proxy's end-to-end tests need the real protected server; apps are not libraries, so this one import crosses
// the project boundary on purpose, in test support only.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { AppModule as ProtectedServerModule } from '../../../protected-server/src/app.module.js';
import { startRecordingForwarder, type RecordingForwarder } from './recording-forwarder.js';

export interface ProtectedServer {
  /** `http://127.0.0.1:<port>/mcp`: the canonical resource URI, the audience of the proxy's tokens. */
  readonly resource: string;
  readonly app: TestApp;
  /** Every request the protected server received. */
  readonly recorder: RecordingForwarder;
  close(): Promise<void>;
}

/** The forwarder, started first, so the resource URI is known before the proxy and the server start. */
export async function reserveResource(): Promise<{ recorder: RecordingForwarder; resource: string }> {
  const recorder = await startRecordingForwarder();
  return { recorder, resource: `${recorder.url}/mcp` };
}

export async function startProtectedServer(options: {
  recorder: RecordingForwarder;
  resource: string;
  authorizationServer: string;
  /** More of the protected server's variables (UPSTREAM_USER_API_URL, INTROSPECTION_CLIENT_ID, ...). */
  env?: Record<string, string>;
}): Promise<ProtectedServer> {
  const app = await startApp(ProtectedServerModule, {
    env: {
      RESOURCE_URI: options.resource,
      AUTHORIZATION_SERVER: options.authorizationServer,
      ...options.env,
    },
  });
  const { recorder } = options;
  recorder.forwardTo(app.url);
  return {
    resource: options.resource,
    app,
    recorder,
    async close() {
      await recorder.close();
      await app.close();
    },
  };
}
