import preset, { withContainers } from '../../jest.preset.js';

// `npm run faults`: every fault test, the slow ones too (floods of malformed requests at each app).
export default {
  ...preset,
  ...withContainers,
  displayName: 'faults',
  testMatch: ['<rootDir>/test/**/*.spec.ts', '<rootDir>/slow/**/*.spec.ts'],
  maxWorkers: 1,
  verbose: true,
  testTimeout: 600_000,
};
