import preset from '../../jest.preset.js';

export default { ...preset, displayName: 'e2e', testTimeout: 60_000 };
