import preset from '../../jest.preset.js';

// `npx nx run e2e:ha`: the highly available stack (docker/ha/compose.yaml) brought up once for the run, in
// containers, and its faults driven from here over the host's loopback under load. One worker: one stack, fixed ports.
export default {
  ...preset,
  displayName: 'e2e:ha',
  testMatch: ['<rootDir>/ha/**/*.spec.ts'],
  globalSetup: '<rootDir>/ha/global-setup.js',
  globalTeardown: '<rootDir>/ha/global-teardown.js',
  maxWorkers: 1,
  verbose: true,
  testTimeout: 300_000,
};
