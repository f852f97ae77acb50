// Shared Jest configuration: ESM (run with --experimental-vm-modules), TypeScript through @swc/jest with
// legacy decorators and decorator metadata (NestJS dependency injection reads it), NodeNext `.js` specifiers
// mapped back to their sources, and `@portcullis/*` resolved to library sources so tests need no build.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('.', import.meta.url));
const { compilerOptions } = JSON.parse(readFileSync(`${root}tsconfig.base.json`, 'utf8'));

const portcullisLibs = Object.fromEntries(
  Object.entries(compilerOptions.paths).map(([name, [target]]) => [
    `^${name.replace('/', '\\/')}$`,
    `${root}${target.replace(/^\.\//, '')}`,
  ]),
);

/**
 * For projects whose tests use `startDatabase()` or `startRedis()`: one PostgreSQL and one Redis container for the
 * project's run, where a container engine answers (see libs/testing/jest/containers.js).
 * @type {import('jest').Config}
 */
export const withContainers = {
  globalSetup: `${root}libs/testing/jest/global-setup.js`,
  globalTeardown: `${root}libs/testing/jest/global-teardown.js`,
};

/** @type {import('jest').Config} */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleFileExtensions: ['ts', 'js', 'mjs', 'json'],
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],
  moduleNameMapper: {
    ...portcullisLibs,
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      {
        jsc: {
          target: 'es2023',
          keepClassNames: true,
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true },
        },
        module: { type: 'es6' },
        sourceMaps: 'inline',
      },
    ],
  },
  testTimeout: 30_000,
  // ESM test files under --experimental-vm-modules keep their module graphs alive: one process running a whole
  // project (Jest runs in band on a 2-core machine) grows past Node's heap limit. With a limit set, Jest runs test
  // files in workers and replaces a worker whose memory passed it after a file.
  workerIdleMemoryLimit: '1GB',
};
