import { describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const bin = fileURLToPath(new URL('../bin/portcullis.js', import.meta.url));

describe('the portcullis bin (after the build)', () => {
  it('runs the built command line', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [bin, '--help']);
    expect(stdout).toContain('Usage: portcullis <command> [options]');
  });

  it('exits 2 on a usage error', async () => {
    await expect(promisify(execFile)(process.execPath, [bin, 'frobnicate'])).rejects.toMatchObject({
      code: 2,
    });
  });
});
