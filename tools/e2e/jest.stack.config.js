import preset from '../../jest.preset.js';

// `npx nx run e2e:stack`: the compose stack (docker/compose.yaml) brought up once for the run, in containers, and
// driven from here over the host's loopback. One worker: the files share the stack and its fixed ports.
export default {
  ...preset,
  displayName: 'e2e:stack',
  testMatch: ['<rootDir>/stack/**/*.spec.ts'],
  globalSetup: '<rootDir>/stack/global-setup.js',
  globalTeardown: '<rootDir>/stack/global-teardown.js',
  maxWorkers: 1,
  verbose: true,
  testTimeout: 180_000,
};
