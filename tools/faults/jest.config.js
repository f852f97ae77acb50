import preset, { withContainers } from '../../jest.preset.js';

// `npm test`: the fault tests that take less than about two minutes each (several instances, crashes, restarts,
// graceful shutdown). One worker: each file runs processes of its own and measures them.
export default { ...preset, ...withContainers, displayName: 'faults', maxWorkers: 1, testTimeout: 120_000 };
