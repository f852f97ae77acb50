import preset from '../../jest.preset.js';

// `npx nx run e2e:upgrade`: the rolling-upgrade stack (docker/upgrade/compose.yaml) brought up once for the run on the
// previous release's image, and upgraded instance by instance from here over the host's loopback under load. One
// worker: one stack, fixed ports; its tests are the upgrade's steps, in order.
export default {
  ...preset,
  displayName: 'e2e:upgrade',
  testMatch: ['<rootDir>/upgrade/**/*.spec.ts'],
  globalSetup: '<rootDir>/upgrade/global-setup.js',
  globalTeardown: '<rootDir>/upgrade/global-teardown.js',
  maxWorkers: 1,
  verbose: true,
  // An upper bound for a loaded machine (each replacement waits for a Node process to boot); a few minutes otherwise.
  testTimeout: 900_000,
};
