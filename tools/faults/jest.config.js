import preset, { withContainers } from '../../jest.preset.js';

// `npm test`: the fault tests that take less than about two minutes each (several instances, crashes, restarts,
// graceful shutdown). One worker: each file runs processes of its own and measures them. The project's test target
// is not run beside other tasks (`parallelism: false` in project.json): under `npm test`'s three parallel tasks on a
// 2-core machine (load average 14) fifty argon2id sign-ins outlasted the drain and a key rotation's admin command its
// activation delay.
export default { ...preset, ...withContainers, displayName: 'faults', maxWorkers: 1, testTimeout: 120_000 };
