import { ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { loadConfigOrExit, stackEnv } from '@shop/config';
import { backingServices, unreachable } from './preflight';
import { startPrivateServers, type PrivateServers } from './private-servers';
import { startStackTraces, type StackTraces } from './stack-traces';
import {
  composeStack,
  describeExternals,
  secretsToGenerate,
  stackPorts,
  type Env,
  type SecretMaker,
  type StackProcess,
} from './stack-environment';

/**
 * `npm start`: checks NATS, Postgres and Redis, migrates, then runs every service of the stack
 * (and a stand-in of each external system the operator does not name) in the foreground with its
 * output prefixed, and prints where each one listens. What each process receives is composed in
 * ./stack-environment.ts.
 */
const root = resolve(__dirname, '..');
const localFile = resolve(root, '.env.local');
const settings = loadConfigOrExit(stackEnv(stackPorts()), 'start');
/** Where the private NATS and Postgres `npm start` starts keep their data. */
const dataDir = resolve(root, settings.dataDir);

/**
 * The generated keys and ids this run uses, made on the first start that needs them and kept in
 * .env.local (ignored by git), so a restart can still decrypt the wallet keys it stored and verify
 * the stand-in's webhooks. Values of other runs stay in the file, unused.
 */
function localSecrets(wanted: Record<string, SecretMaker>, operator: Env): Env {
  const saved: Env = existsSync(localFile)
    ? Object.fromEntries(
        readFileSync(localFile, 'utf8')
          .split('\n')
          .filter((line) => line.includes('='))
          .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
      )
    : {};
  const missing = Object.entries(wanted).filter(([name]) => !saved[name]);
  if (missing.length === 0) return saved;
  for (const [name, make] of missing) saved[name] = make({ ...saved, ...operator });
  writeFileSync(
    localFile,
    Object.entries(saved)
      .map(([k, v]) => `${k}=${v}`)
      .join('\n') + '\n',
    { mode: 0o600 },
  );
  return saved;
}

const operator: Env = process.env;
const stack = composeStack(operator, localSecrets(secretsToGenerate(operator), operator), settings);

const children: ChildProcess[] = [];
let privateServers: PrivateServers | null = null;
let traces: StackTraces | null = null;

function run(spec: StackProcess): Promise<void> {
  return new Promise((ready, fail) => {
    const child = spawn(process.execPath, ['-r', '@swc-node/register', resolve(root, spec.entry)], {
      cwd: root,
      env: spec.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let started = false;
    for (const stream of [child.stdout!, child.stderr!]) {
      createInterface({ input: stream }).on('line', (line) => {
        process.stdout.write(`[${spec.name}] ${line}\n`);
        if (!started && spec.ready.test(line)) {
          started = true;
          ready();
        }
      });
    }
    child.once('exit', (code) => {
      if (!started) fail(new Error(`${spec.name} exited with code ${code} before it was ready`));
      else if (!stopping) {
        process.stderr.write(`[start] ${spec.name} exited with code ${code}; stopping the stack\n`);
        stop(1);
      }
    });
  });
}

let stopping = false;
function stop(code: number): void {
  if (stopping) return;
  stopping = true;
  for (const child of children) child.kill('SIGTERM');
  // A service not drained by then is killed, so the private servers it used still stop cleanly after it.
  setTimeout(() => children.forEach((child) => child.kill('SIGKILL')), 5000).unref();
  setTimeout(() => process.exit(code), 30_000).unref();
  Promise.all(children.map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : c.once('exit', r)))))
    .then(() => Promise.all([privateServers?.stop(), traces?.collector.close()]))
    .then(() => process.exit(code));
}

async function main(): Promise<void> {
  process.stdout.write(
    '[start] development stack: TypeScript through the runtime transpiler (@swc-node/register).\n' +
      '[start] The compiled production build runs as README "Running the built stack" shows.\n',
  );
  const missing = await unreachable(backingServices(operator));
  if (missing.length > 0) {
    privateServers = await startPrivateServers(missing, dataDir, (line) =>
      process.stdout.write(`[start] ${line}\n`),
    );
    if (!privateServers) process.exit(1);
  }
  traces = await startStackTraces(operator, settings.tracesPort);
  if (traces) for (const service of stack.processes) Object.assign(service.env, traces.env);
  await new Promise<void>((done, fail) => {
    const migrate = spawn(
      process.execPath,
      ['-r', '@swc-node/register', resolve(root, 'scripts/migrate.ts')],
      {
        cwd: root,
        env: operator,
        stdio: 'inherit',
      },
    );
    migrate.once('exit', (code) => (code === 0 ? done() : fail(new Error('migration failed'))));
  });
  process.on('SIGINT', () => stop(0));
  process.on('SIGTERM', () => stop(0));
  process.stdout.write(`External systems:\n${describeExternals(stack.externals).join('\n')}\n`);
  for (const service of stack.processes) await run(service);
  process.stdout.write('\nThe stack is up:\n');
  for (const service of stack.processes)
    process.stdout.write(`  ${service.name.padEnd(12)} ${service.url}\n`);
  process.stdout.write(`  ${'API docs'.padEnd(12)} ${stack.gatewayUrl}/swagger\n`);
  if (traces) process.stdout.write(`  ${'traces'.padEnd(12)} ${traces.collector.url}/traces\n`);
  process.stdout.write(`External systems:\n${describeExternals(stack.externals).join('\n')}\n\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`[start] ${error instanceof Error ? error.message : String(error)}\n`);
  stop(1);
});
