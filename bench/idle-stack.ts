import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { ServiceProcess, startServiceProcess } from '@shop/testing';
import { composeStack, type Env, SERVICES, STAND_INS, secretsToGenerate } from '../scripts/stack-environment';
import { BenchNames, freePort } from './bench-stack';
import { cpuSecondsOf } from './process-stats';

/** Every package the `npm start` stack runs, for the build. */
export const stackPackages = [
  '@shop/gateway',
  '@shop/projector',
  '@shop/search',
  '@shop/analytics',
  '@shop/sandbox-provider',
  '@shop/sandbox-apify',
  '@shop/sandbox-sui',
  '@shop/sandbox-model',
];

/** The schemas of the idle stack, after `${names.schema}`: for the clean-up. */
export const idleSchemaSuffixes = [
  '_idle',
  '_idle_secrets',
  '_idle_analytics',
  '_idle_indexer',
  '_idle_reactions',
  '_idle_search',
];

/**
 * (g) CPU an idle stack burns: every process `npm start` runs (the services, the chain indexer
 * the gateway hosts, and a stand-in of each external system), composed by the same
 * scripts/stack-environment.ts, on a stream, schemas, key prefix and ports of this run. Each
 * process's CPU time over `seconds`, as a share of one core, and their total.
 */
export async function measureIdleStack(options: {
  names: BenchNames;
  /** What every process gets besides the stack's own wiring (database, NATS, NODE_ENV). */
  settings: Record<string, string>;
  compiled: boolean;
  seconds: number;
  /** From the last process's ready line to the start of the measurement. */
  settleSeconds: number;
  log(line: string): void;
}) {
  const { names, settings, compiled, seconds, settleSeconds, log } = options;
  const ports: Env = {};
  for (const spec of [...STAND_INS, ...SERVICES]) {
    ports[spec.port.variable] = String(await freePort());
    if ('metricsPort' in spec && spec.metricsPort)
      ports[spec.metricsPort.variable] = String(await freePort());
  }
  const operator: Env = {
    ...settings,
    ...ports,
    EVENT_STREAM: `${names.stream}_IDLE`,
    EVENT_SUBJECT_PREFIX: `${names.subjectPrefix}idle`,
    READ_MODEL_SCHEMA: `${names.schema}_idle`,
    SECRETS_SCHEMA: `${names.schema}_idle_secrets`,
    ANALYTICS_SCHEMA: `${names.schema}_idle_analytics`,
    INDEXER_SCHEMA: `${names.schema}_idle_indexer`,
    REACTIONS_SCHEMA: `${names.schema}_idle_reactions`,
    SEARCH_SCHEMA: `${names.schema}_idle_search`,
    REDIS_KEY_PREFIX: `${names.redisKeyPrefix}idle:`,
    DATA_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
  };
  // Every stand-in runs, whatever real systems the shell running the bench may name.
  for (const standIn of STAND_INS) for (const name of standIn.realSystemVariables) delete operator[name];
  const secrets: Env = {};
  for (const [name, make] of Object.entries(secretsToGenerate(operator)))
    secrets[name] = make({ ...secrets, ...operator });
  const plan = composeStack(operator, secrets);

  const started: { name: string; process: ServiceProcess }[] = [];
  try {
    await operatorStep({ ...process.env, ...operator });
    for (const spec of plan.processes) {
      const entry = compiled ? spec.entry.replace(/\/src\/main\.ts$/, '/dist/main.js') : spec.entry;
      const env = Object.fromEntries(Object.entries(spec.env).filter(([, v]) => v !== undefined)) as Record<
        string,
        string
      >;
      const process = startServiceProcess(entry, env, { compiled });
      started.push({ name: spec.name, process });
      await process.waitForOutput(spec.ready, 60_000);
    }
    log(`(g) idle stack of ${started.length} processes up; settling ${settleSeconds} s`);
    // Start-up work is not idling: consumers catching up, the first JWKS fetch, the indexer's first
    // pass, and V8's memory reducer, whose full collections of the start-up heap come tens of
    // seconds after a process stops allocating (GC logs showed 0.2 to 0.4 s of them per process).
    await new Promise((r) => setTimeout(r, settleSeconds * 1000));
    log(`(g) idle stack: CPU time of every process over ${seconds} s`);
    const before = started.map((s) => cpuSecondsOf(s.process.child.pid!));
    const from = performance.now();
    await new Promise((r) => setTimeout(r, seconds * 1000));
    const elapsed = (performance.now() - from) / 1000;
    const percent = started.map(
      (s, i) => Math.round(((cpuSecondsOf(s.process.child.pid!) - before[i]!) / elapsed) * 10_000) / 100,
    );
    return {
      seconds: Math.round(elapsed * 10) / 10,
      processes: Object.fromEntries(started.map((s, i) => [s.name, percent[i]!])),
      totalPercentOfCore: Math.round(percent.reduce((a, b) => a + b, 0) * 100) / 100,
    };
  } finally {
    for (const { process } of started.reverse()) await process.stop();
  }
}

/**
 * `npm run migrate` with the stack's variables, before any service starts, as `npm start` runs
 * it: the services only bind to the stream and bucket the operator made.
 */
function operatorStep(env: Env): Promise<void> {
  const root = resolve(__dirname, '..');
  return new Promise((done, fail) => {
    let output = '';
    const migrate = spawn(
      process.execPath,
      ['-r', '@swc-node/register', resolve(root, 'scripts/migrate.ts')],
      {
        cwd: root,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    migrate.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    migrate.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    migrate.once('error', fail);
    migrate.once('exit', (code) =>
      code === 0 ? done() : fail(new Error(`npm run migrate exited with ${code}:\n${output}`)),
    );
  });
}
