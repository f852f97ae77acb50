import preset from '../../jest.preset.js';

export default { ...preset, displayName: 'extension-workload-identity' };
