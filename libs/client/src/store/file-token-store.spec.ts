import { afterEach, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileTokenStore } from './file-token-store.js';
import { TOKEN_KEY_ENV } from './token-encryption.js';
import type { StoredTokenSet } from './token-store.js';

const SECRET_REFRESH_TOKEN = 'rt-very-secret-refresh-token-value';

const tokens: StoredTokenSet = {
  issuer: 'https://as.example',
  resource: 'https://mcp.example/mcp',
  clientId: 'client-a',
  resourceIndicator: 'https://mcp.example/mcp',
  accessToken: 'at-secret-access-token-value',
  tokenType: 'Bearer',
  refreshToken: SECRET_REFRESH_TOKEN,
  scope: ['notes:read'],
  requestedScope: ['notes:read'],
  obtainedAt: 1,
};

describe('FileTokenStore (AES-256-GCM, mode 0600)', () => {
  let directory: string;
  afterEach(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  async function setUp(env: Record<string, string> = {}) {
    directory = await mkdtemp(join(tmpdir(), 'portcullis-file-store-'));
    const path = join(directory, 'home', 'tokens.json');
    return { path, store: new FileTokenStore({ path, env }) };
  }

  it('writes no token in clear and creates the store and key files with mode 0600', async () => {
    const { path, store } = await setUp();
    await store.saveTokens(tokens);

    const raw = await readFile(path, 'utf8');
    expect(raw).not.toContain(SECRET_REFRESH_TOKEN);
    expect(raw).not.toContain(tokens.accessToken);
    expect(JSON.parse(raw)).toMatchObject({ format: 'portcullis-token-store', version: 1, alg: 'A256GCM' });
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await stat(join(directory, 'home', 'token-store.key'))).mode & 0o777).toBe(0o600);
    expect((await stat(join(directory, 'home'))).mode & 0o777).toBe(0o700);
  });

  it('reads back what it wrote with the generated key, from a new instance', async () => {
    const { path, store } = await setUp();
    await store.saveTokens(tokens);

    expect(await new FileTokenStore({ path, env: {} }).findTokens(tokens.resource)).toEqual([tokens]);
  });

  it(`uses the key from ${TOKEN_KEY_ENV} and creates no key file then`, async () => {
    const key = randomBytes(32).toString('base64');
    const { path, store } = await setUp({ [TOKEN_KEY_ENV]: key });
    await store.saveTokens(tokens);

    await expect(stat(join(directory, 'home', 'token-store.key'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await new FileTokenStore({ path, env: { [TOKEN_KEY_ENV]: key } }).listTokens()).toHaveLength(1);
    await expect(
      new FileTokenStore({ path, env: { [TOKEN_KEY_ENV]: randomBytes(32).toString('hex') } }).listTokens(),
    ).rejects.toMatchObject({ code: 'token_store_failed' });
  });

  it('refuses a key that is not 256 bits', async () => {
    const { store } = await setUp({ [TOKEN_KEY_ENV]: 'c2hvcnQ=' });
    await expect(store.saveTokens(tokens)).rejects.toMatchObject({ code: 'token_store_failed' });
  });

  it('refuses a file that was altered', async () => {
    const { path, store } = await setUp();
    await store.saveTokens(tokens);
    const sealed = JSON.parse(await readFile(path, 'utf8')) as { ciphertext: string };
    const bytes = Buffer.from(sealed.ciphertext, 'base64');
    bytes[0] = (bytes[0] as number) ^ 1;
    await writeFile(path, JSON.stringify({ ...sealed, ciphertext: bytes.toString('base64') }));

    await expect(store.listTokens()).rejects.toMatchObject({ code: 'token_store_failed' });
  });

  describe('exclusive turns (processes sharing the file refresh one at a time)', () => {
    const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

    it('gives two stores on one file their turns one at a time, each reading what the previous one wrote', async () => {
      const { path } = await setUp();
      // Two instances stand for two processes: the lock is the file system's, not the instance's.
      const stores = [new FileTokenStore({ path, env: {} }), new FileTokenStore({ path, env: {} })];
      await stores[0]!.saveTokens({ ...tokens, obtainedAt: 0 });
      let inside = 0;
      let most = 0;
      const turn = (store: FileTokenStore) =>
        store.exclusive(async () => {
          inside += 1;
          most = Math.max(most, inside);
          const [current] = await store.findTokens(tokens.resource);
          await pause(20);
          await store.saveTokens({ ...tokens, obtainedAt: (current?.obtainedAt ?? 0) + 1 });
          inside -= 1;
        });

      await Promise.all(Array.from({ length: 6 }, (_, index) => turn(stores[index % 2]!)));

      expect(most).toBe(1);
      // No turn lost another's write: six increments.
      expect((await stores[0]!.findTokens(tokens.resource))[0]?.obtainedAt).toBe(6);
      await expect(stat(`${path}.lock`)).rejects.toMatchObject({ code: 'ENOENT' });
    });

    it('makes a write from another store wait for the turn in progress, so neither loses the other', async () => {
      const { path } = await setUp();
      const refreshing = new FileTokenStore({ path, env: {} });
      const other = new FileTokenStore({ path, env: {} });
      await refreshing.saveTokens(tokens);
      const order: string[] = [];
      const turn = refreshing.exclusive(async () => {
        await pause(100);
        await refreshing.saveTokens({ ...tokens, refreshToken: 'rt-rotated' });
        order.push('rotated');
      });
      await pause(20);
      const client = other
        .saveClient({
          issuer: 'https://as.example',
          clientId: 'client-a',
          tokenEndpointAuthMethod: 'none',
          redirectUris: ['http://127.0.0.1/callback'],
          registeredAt: 1,
        })
        .then(() => order.push('client saved'));
      await Promise.all([turn, client]);

      expect(order).toEqual(['rotated', 'client saved']);
      const reread = new FileTokenStore({ path, env: {} });
      expect((await reread.findTokens(tokens.resource))[0]?.refreshToken).toBe('rt-rotated');
      expect(await reread.getClient('https://as.example')).toBeDefined();
    });

    it('takes over a lock left behind by a process that died', async () => {
      const { path, store } = await setUp();
      await mkdir(`${path}.lock`, { recursive: true });
      const longAgo = new Date(Date.now() - 60_000);
      await utimes(`${path}.lock`, longAgo, longAgo);

      await expect(store.exclusive(async () => 'ran')).resolves.toBe('ran');
    });

    it('fails with token_store_failed when another process keeps its turn past the timeout', async () => {
      const { path } = await setUp();
      const holder = new FileTokenStore({ path, env: {} });
      const waiter = new FileTokenStore({ path, env: {}, lockTimeoutMs: 200 });
      let ran = false;
      const held = holder.exclusive(() => pause(1_000));

      await pause(50);
      await expect(
        waiter.exclusive(async () => {
          ran = true;
        }),
      ).rejects.toMatchObject({ code: 'token_store_failed' });
      expect(ran).toBe(false);
      await held;
    });
  });
});
