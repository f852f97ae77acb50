import preset from '../../jest.preset.js';

// test/ is the persistence-integration project's (it needs libs/testing, which depends on this lib).
export default { ...preset, displayName: 'persistence', testMatch: ['<rootDir>/src/**/*.spec.ts'] };
