// Preloaded (NODE_OPTIONS=--require) into the gateway and the projector by
// `npm run bench -- --profile`. Plain CommonJS: a transpiler loaded for it would add its own
// ~75 MiB to the RSS the bench reports. Node refuses --cpu-prof in NODE_OPTIONS, so the profiler is
// started through the inspector here. SIGWINCH (which Nest's shutdown hooks, unlike SIGUSR2, leave alone) writes what was sampled since the last one as
// <service>-<label>.cpuprofile, <label> being what the bench wrote to BENCH_PROFILE_DIR/label
// (the phase that just ended), and starts afresh: one profile per phase. SIGTERM writes the rest.
const { mkdirSync, readFileSync, writeFileSync } = require('node:fs');
const { Session } = require('node:inspector');
const { basename, dirname, join } = require('node:path');

const session = new Session();
session.connect();
session.post('Profiler.enable', () => session.post('Profiler.start'));
// services/<name>/src/main.ts or services/<name>/dist/main.js -> <name>
const service = basename(dirname(dirname(process.argv[1] ?? 'unknown')));

function save(label, then) {
  session.post('Profiler.stop', (error, result) => {
    const dir = process.env.BENCH_PROFILE_DIR;
    if (!error && dir) {
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `${service}-${label}.cpuprofile`), JSON.stringify(result.profile));
    }
    then();
  });
}

function labelNow() {
  try {
    return readFileSync(join(process.env.BENCH_PROFILE_DIR ?? '', 'label'), 'utf8').trim();
  } catch {
    return String(process.pid);
  }
}

process.on('SIGWINCH', () => save(labelNow(), () => session.post('Profiler.start')));
process.once('SIGTERM', () => save(`end-${process.pid}`, () => process.exit(0)));
