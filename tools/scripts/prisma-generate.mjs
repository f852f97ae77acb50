// Runs `prisma generate` offline. Generation needs no schema engine, but the CLI insists on locating one
// and would download it; pointing PRISMA_SCHEMA_ENGINE_BINARY at any existing file satisfies that check.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const schema = 'libs/persistence/prisma/schema.prisma';
if (!existsSync(`${root}/${schema}`)) process.exit(0);

const env = { ...process.env, PRISMA_HIDE_UPDATE_MESSAGE: '1', CHECKPOINT_DISABLE: '1' };
env.PRISMA_SCHEMA_ENGINE_BINARY ??= process.execPath;
const result = spawnSync(
  process.execPath,
  ['node_modules/prisma/build/index.js', 'generate', '--schema', schema],
  {
    cwd: root,
    env,
    stdio: 'inherit',
  },
);
process.exit(result.status ?? 1);
