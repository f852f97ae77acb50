// Real MCP clients nobody here wrote, the npm packages users run (pinned dev dependencies), against the built stack:
// mcp-remote (the stdio bridge of many desktop clients) and the MCP Inspector's command line. Each connects to the
// protected server behind the authorization server, and to the one behind the proxy, and gets its token through its
// own OAuth (discovery, dynamic registration, PKCE, its loopback callback); the browser it opens is the fake browser,
// whose URL the headless user-agent walks, signing in as the demo user and consenting, before delivering the
// redirect to the client's callback listener, so the client makes its own token request. Their configuration and
// tokens live in a temporary directory, never in the user's home.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { FormUserAgent, freePort, waitFor } from '@portcullis/testing';
import { text } from './support/client-helpers.js';
import { startFakeBrowser, type FakeBrowser } from './support/fake-browser.js';
import { runInspector } from './support/inspector-cli.js';
import { startMcpRemote } from './support/mcp-remote.js';
import { startStack, type Stack } from './support/stack.js';

/** How long a client may take to open the browser, and the whole flow to reach a tool: a slow 2-core CI machine. */
const BROWSER_WAIT_MS = 120_000;
const TEST_TIMEOUT_MS = 300_000;

interface Target {
  readonly issuer: string;
  readonly resource: string;
}

const TARGETS: readonly [string, (stack: Stack) => Target][] = [
  ['the authorization server', (stack) => ({ issuer: stack.issuer, resource: stack.resource })],
  ['the proxy', (stack) => stack.proxied!],
];

describe('real MCP clients, to a tool call', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ proxy: true });
  }, 180_000);
  afterAll(async () => {
    await stack?.stop();
  });

  let browser: FakeBrowser;
  let home: string;
  /** Run after each test whatever happened: the clients' processes first, then the browser and the directory. */
  let cleanups: (() => Promise<unknown>)[];
  beforeEach(async () => {
    cleanups = [];
    browser = await startFakeBrowser();
    home = await mkdtemp(join(tmpdir(), 'portcullis-client-home-'));
  });
  afterEach(async () => {
    for (const cleanup of (cleanups ?? []).reverse()) await cleanup().catch(() => undefined);
    await browser?.close();
    if (home) await rm(home, { recursive: true, force: true });
  });

  /**
   * The person at the browser: walks the authorization URL the client opened (sign in as the demo user, consent; on
   * the proxy, its consent and the upstream's pages too), then lets the browser follow the redirect to the client's
   * loopback callback, which answers once it has the code. The same `ua` is the same browser (its session cookie).
   * mcp-remote opens the browser of a mid-session step-up before its callback listener is up (a person clicking
   * through takes longer than that); the browser follows the redirect once something listens there.
   */
  async function signInAt(url: string, ua = new FormUserAgent(stack.user)): Promise<number> {
    const redirectUri = new URL(url).searchParams.get('redirect_uri') ?? '';
    const callback = await ua.authorize(url, redirectUri);
    await waitFor(() => accepts(new URL(callback)), BROWSER_WAIT_MS);
    return (await ua.browser.get(callback)).status;
  }

  /** The authorization request of a client doing its own OAuth: a registered client, PKCE, the resource, loopback. */
  function expectOwnAuthorizationRequest(url: string, target: Target): void {
    const request = new URL(url);
    expect(`${request.origin}${request.pathname}`).toBe(`${target.issuer}/authorize`);
    const params = request.searchParams;
    expect(params.get('response_type')).toBe('code');
    expect(params.get('client_id')).toMatch(/^dcr_/);
    expect(params.get('code_challenge_method')).toBe('S256');
    expect(params.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(params.get('resource')).toBe(target.resource);
    expect(params.get('redirect_uri')).toMatch(/^http:\/\/(localhost|127\.0\.0\.1):\d+\/oauth\/callback$/);
  }

  describe.each(TARGETS)('against %s', (_name, targetOf) => {
    it(
      'mcp-remote signs in through the browser it opens, lists the tools, creates a note and lists it, and a second run uses its stored token',
      async () => {
        const target = targetOf(stack);
        const configDir = join(home, 'mcp-remote');
        const options = { serverUrl: target.resource, configDir, browser };
        const remote = startMcpRemote({ ...options, callbackPort: await freePort() });
        cleanups.push(() => remote.close());

        const url = await browser.nextUrl({
          timeoutMs: BROWSER_WAIT_MS,
          context: remote.stderr,
          unless: remote.connected,
        });
        expectOwnAuthorizationRequest(url, target);
        const ua = new FormUserAgent(stack.user);
        expect(await signInAt(url, ua)).toBe(200);
        expect(ua.shown.login).toBe(1);
        await remote.connected;

        const tools = await remote.client.listTools();
        expect(tools.tools.map((tool) => tool.name).sort()).toEqual([
          'notes_create',
          'notes_delete',
          'notes_get',
          'notes_list',
        ]);
        const title = `from mcp-remote via ${new URL(target.issuer).port}`;
        const created = await remote.client.callTool({ name: 'notes_create', arguments: { title } });
        expect(created.isError).toBeFalsy();
        expect(JSON.parse(text(created))).toMatchObject({ title });
        expect(text(await remote.client.callTool({ name: 'notes_list', arguments: {} }))).toContain(title);
        await remote.close();
        // Its registration and tokens went to MCP_REMOTE_CONFIG_DIR.
        const stored = await readdir(join(configDir, 'mcp-auth', 'mcp-remote-v1'));
        expect(stored.some((file) => file.endsWith('_tokens.json'))).toBe(true);
        expect(stored.some((file) => file.endsWith('_client_info.json'))).toBe(true);

        // A desktop client restarts mcp-remote with every session: no browser this time.
        const again = startMcpRemote({ ...options, callbackPort: await freePort() });
        cleanups.push(() => again.close());
        await again.connected;
        expect(text(await again.client.callTool({ name: 'notes_list', arguments: {} }))).toContain(title);
        expect(browser.opened).toHaveLength(1);
      },
      TEST_TIMEOUT_MS,
    );

    it(
      "the Inspector's command line signs in through the browser it opens and creates a note, then a second run lists it with the stored token alone",
      async () => {
        const target = targetOf(stack);
        const storageDir = join(home, 'inspector');
        const title = `from the Inspector via ${new URL(target.issuer).port}`;
        const create = runInspector({
          serverUrl: target.resource,
          args: ['--method', 'tools/call', '--tool-name', 'notes_create', '--tool-arg', `title=${title}`],
          callbackPort: await freePort(),
          storageDir,
          browser,
        });
        cleanups.push(() => create.kill());

        const url = await browser.nextUrl({
          timeoutMs: BROWSER_WAIT_MS,
          context: create.stderr,
          unless: create.exited,
        });
        expectOwnAuthorizationRequest(url, target);
        const ua = new FormUserAgent(stack.user);
        expect(await signInAt(url, ua)).toBe(200);
        expect(ua.shown.login).toBe(1);
        const created = await create.exited;
        expect({ code: created.code, stderr: created.stderr }).toMatchObject({ code: 0 });
        expect(JSON.parse(text(inspectorResult(created.stdout)))).toMatchObject({ title });

        // --stored-auth-only: the Inspector's documented non-interactive mode, failing rather than opening a browser.
        const list = runInspector({
          serverUrl: target.resource,
          args: ['--method', 'tools/call', '--tool-name', 'notes_list', '--stored-auth-only'],
          callbackPort: await freePort(),
          storageDir,
          browser,
        });
        cleanups.push(() => list.kill());
        const listed = await list.exited;
        expect({ code: listed.code, stderr: listed.stderr }).toMatchObject({ code: 0 });
        expect(text(inspectorResult(listed.stdout))).toContain(title);
        expect(browser.opened).toHaveLength(1);
      },
      TEST_TIMEOUT_MS,
    );
  });

  // The proxy's consent page offers no choice of scopes, so only the authorization server's can grant less.
  it(
    'mcp-remote steps up when the person granted only notes:read: the 403 insufficient_scope challenge sends it back to the browser, and notes_create succeeds',
    async () => {
      const remote = startMcpRemote({
        serverUrl: stack.resource,
        configDir: join(home, 'mcp-remote'),
        browser,
        callbackPort: await freePort(),
      });
      cleanups.push(() => remote.close());
      let untick = ['notes:write'];
      const ua = new FormUserAgent(stack.user, () => ({ untick }));
      const first = await browser.nextUrl({
        timeoutMs: BROWSER_WAIT_MS,
        context: remote.stderr,
        unless: remote.connected,
      });
      expect(await signInAt(first, ua)).toBe(200);
      await remote.connected;
      // Reading needs only what was granted.
      expect((await remote.client.callTool({ name: 'notes_list', arguments: {} })).isError).toBeFalsy();

      const title = 'after a step-up, from mcp-remote';
      const creating = remote.client.callTool(
        { name: 'notes_create', arguments: { title } },
        { timeout: TEST_TIMEOUT_MS },
      );
      const second = await browser.nextUrl({
        timeoutMs: BROWSER_WAIT_MS,
        context: remote.stderr,
        unless: creating,
      });
      expect(new URL(second).searchParams.get('scope')?.split(' ')).toContain('notes:write');
      untick = [];
      expect(await signInAt(second, ua)).toBe(200);
      const created = await creating;
      expect(created.isError).toBeFalsy();
      expect(JSON.parse(text(created))).toMatchObject({ title });
      // The same browser: signed in once, asked twice.
      expect(ua.shown).toMatchObject({ login: 1, consent: 2 });
    },
    TEST_TIMEOUT_MS,
  );
});

/** The `result` of the Inspector's `--format json` output. */
function inspectorResult(stdout: string): unknown {
  return (JSON.parse(stdout) as { result: unknown }).result;
}

/** Whether something accepts TCP connections at `url`'s host and port. */
function accepts(url: URL): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: url.hostname, port: Number(url.port) });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
