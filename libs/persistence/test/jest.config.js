import preset, { withContainers } from '../../../jest.preset.js';

// Database-level tests of libs/persistence; a project of their own because they use libs/testing, which
// itself depends on libs/persistence.
export default {
  ...preset,
  ...withContainers,
  displayName: 'persistence-integration',
  testMatch: ['<rootDir>/**/*.spec.ts'],
};
