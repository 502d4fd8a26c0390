// Preloaded (NODE_OPTIONS=--require) into the gateway and the projector by
// `npm run bench -- --profile`: Node refuses --cpu-prof in NODE_OPTIONS, so the profiler is
// started through the inspector here, and the profile written to BENCH_PROFILE_DIR on SIGTERM.
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { basename, dirname, join } from 'node:path';

const session = new Session();
session.connect();
session.post('Profiler.enable', () => session.post('Profiler.start'));
process.once('SIGTERM', () => {
  session.post('Profiler.stop', (error, result) => {
    const dir = process.env.BENCH_PROFILE_DIR;
    if (!error && dir) {
      mkdirSync(dir, { recursive: true });
      // services/<name>/src/main.ts -> <name>
      const service = basename(dirname(dirname(process.argv[1] ?? 'unknown')));
      writeFileSync(join(dir, `${service}-${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    }
    process.exit(0);
  });
});
