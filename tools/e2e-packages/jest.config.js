import preset from '../../jest.preset.js';

// The published packages as a team gets them (see jest/local-registry.js). One worker: each file runs the built apps
// and its own scratch projects, which is as much as a small machine takes at once.
export default {
  ...preset,
  displayName: 'e2e-packages',
  globalSetup: '<rootDir>/jest/global-setup.js',
  globalTeardown: '<rootDir>/jest/global-teardown.js',
  maxWorkers: 1,
  testTimeout: 60_000,
  verbose: true,
};
