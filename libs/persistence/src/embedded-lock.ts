import { hostname } from 'node:os';
import { mkdir, open, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';

const LOCK_FILE = 'portcullis.lock';

/** Another live process has the embedded database open. */
export class EmbeddedDatabaseBusyError extends Error {
  constructor(
    readonly dir: string,
    readonly ownerPid: number,
  ) {
    super(`the embedded database at ${dir} is in use by process ${ownerPid}; stop it or set PGLITE_DIR`);
    this.name = 'EmbeddedDatabaseBusyError';
  }
}

interface LockContent {
  pid: number;
  host: string;
}

export interface EmbeddedLock {
  /** Whether a lock left by a dead process was taken over (the previous owner crashed). */
  recoveredFrom: number | null;
  release(): Promise<void>;
}

/**
 * Takes ownership of an embedded (PGlite) data directory for this process.
 *
 * PGlite writes a `postmaster.pid` with a fixed fake pid, so it cannot tell a crashed owner from a live one,
 * and two processes opening one directory corrupt it. This lock file records the real owner: a lock whose
 * process is gone (after `kill -9`) is taken over and PGlite's stale `postmaster.pid` removed; a lock whose
 * process lives refuses the open. Creation uses `O_EXCL`, so two processes starting together cannot both win.
 */
export async function acquireEmbeddedLock(dir: string): Promise<EmbeddedLock> {
  await mkdir(dir, { recursive: true });
  const path = join(dir, LOCK_FILE);
  let recoveredFrom: number | null = null;
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      const handle = await open(path, 'wx', 0o600);
      const content: LockContent = { pid: process.pid, host: hostname() };
      await handle.writeFile(JSON.stringify(content));
      await handle.sync();
      await handle.close();
      return {
        recoveredFrom,
        release: async () => {
          const current = await readLock(path);
          if (current?.pid === process.pid) await rm(path, { force: true });
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = await readLock(path);
    // Process ids are only meaningful on one machine (or in one container's pid namespace); the embedded
    // database is a single-machine store, so the recorded host is kept for people reading the file.
    if (owner && owner.pid !== process.pid && isAlive(owner.pid)) {
      throw new EmbeddedDatabaseBusyError(dir, owner.pid);
    }
    // The owner is gone (or the file is unreadable, i.e. it died while writing it): take over.
    recoveredFrom = owner?.pid ?? -1;
    await rm(join(dir, 'postmaster.pid'), { force: true });
    await rm(path, { force: true });
  }
  throw new Error(`could not take the lock on the embedded database at ${dir}`);
}

async function readLock(path: string): Promise<LockContent | null> {
  try {
    const parsed = JSON.parse(await readFile(path, 'utf8')) as Partial<LockContent>;
    return typeof parsed.pid === 'number' && typeof parsed.host === 'string'
      ? { pid: parsed.pid, host: parsed.host }
      : null;
  } catch {
    return null;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
