import preset, { withContainers } from '../../jest.preset.js';

export default { ...preset, ...withContainers, displayName: 'e2e', testTimeout: 60_000 };
