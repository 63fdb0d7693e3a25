// Preloaded (`node --require`) by bench/alloc-profile.ts into the server it profiles. On SIGUSR2
// it starts V8's sampling heap profiler, keeping the objects already collected too (so it counts
// every allocation, not what survives); on SIGTERM it writes the profile to ALLOC_PROFILE_OUT and exits.
const inspector = require('node:inspector');
const { writeFileSync } = require('node:fs');

const session = new inspector.Session();
session.connect();
const SAMPLING_INTERVAL_BYTES = 512;

process.on('SIGUSR2', () => {
  session.post('HeapProfiler.startSampling', {
    samplingInterval: SAMPLING_INTERVAL_BYTES,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
});
process.once('SIGTERM', () => {
  session.post('HeapProfiler.stopSampling', (err, result) => {
    if (!err) writeFileSync(process.env.ALLOC_PROFILE_OUT, JSON.stringify(result.profile));
    process.exit(err ? 1 : 0);
  });
});
