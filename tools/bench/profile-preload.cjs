// Preloaded into an app under test when BENCH_PROFILE_DIR is set (`--require`; Node refuses `--cpu-prof` in
// NODE_OPTIONS): a V8 CPU profile of the whole process, written as <dir>/<pid>.cpuprofile when it exits.
'use strict';
const { Session } = require('node:inspector');
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');

const dir = process.env.BENCH_PROFILE_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: 200 });
  session.post('Profiler.start');
  process.once('exit', () => {
    // The in-process session answers synchronously, so the profile is written before the process ends.
    session.post('Profiler.stop', (error, result) => {
      if (!error) writeFileSync(join(dir, `${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}
