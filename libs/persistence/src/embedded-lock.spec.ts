import { afterEach, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { acquireEmbeddedLock, EmbeddedDatabaseBusyError } from './embedded-lock.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function dataDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'portcullis-lock-'));
  dirs.push(dir);
  return dir;
}

function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  return new Promise((resolve) => child.once('exit', () => resolve(child.pid!)));
}

describe('the embedded database lock', () => {
  it('records this process as the owner and removes the lock on release', async () => {
    const dir = await dataDir();
    const lock = await acquireEmbeddedLock(dir);
    expect(lock.recoveredFrom).toBeNull();
    expect(JSON.parse(await readFile(join(dir, 'portcullis.lock'), 'utf8'))).toMatchObject({
      pid: process.pid,
    });
    await lock.release();
    await expect(stat(join(dir, 'portcullis.lock'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('refuses a directory whose lock names a live process', async () => {
    const dir = await dataDir();
    const owner = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)']);
    try {
      await writeFile(join(dir, 'portcullis.lock'), JSON.stringify({ pid: owner.pid, host: 'h' }));
      await expect(acquireEmbeddedLock(dir)).rejects.toThrow(new EmbeddedDatabaseBusyError(dir, owner.pid!));
      expect(JSON.parse(await readFile(join(dir, 'portcullis.lock'), 'utf8')).pid).toBe(owner.pid);
    } finally {
      owner.kill('SIGKILL');
    }
  });

  it('takes over the lock of a crashed process and removes its stale postmaster.pid', async () => {
    const dir = await dataDir();
    const pid = await deadPid();
    await writeFile(join(dir, 'portcullis.lock'), JSON.stringify({ pid, host: 'h' }));
    await writeFile(join(dir, 'postmaster.pid'), '-42\n/pglite/data\n');
    const lock = await acquireEmbeddedLock(dir);
    expect(lock.recoveredFrom).toBe(pid);
    await expect(stat(join(dir, 'postmaster.pid'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(JSON.parse(await readFile(join(dir, 'portcullis.lock'), 'utf8')).pid).toBe(process.pid);
    await lock.release();
  });

  it('takes over a lock file left half-written', async () => {
    const dir = await dataDir();
    await writeFile(join(dir, 'portcullis.lock'), '{"pi');
    const lock = await acquireEmbeddedLock(dir);
    expect(lock.recoveredFrom).toBe(-1);
    await lock.release();
  });
});
