import preset, { withContainers } from '../../jest.preset.js';

export default { ...preset, ...withContainers, displayName: 'client-sdk' };
