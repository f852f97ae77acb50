import preset, { withContainers } from '../../jest.preset.js';

export default { ...preset, ...withContainers, displayName: 'protected-server' };
