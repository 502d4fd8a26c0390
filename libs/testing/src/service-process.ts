import { ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';

const repoRoot = resolve(__dirname, '../../..');

export interface ServiceProcess {
  child: ChildProcess;
  output(): string;
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<void>;
  /** SIGTERM and wait for the exit. */
  stop(): Promise<number | null>;
  /** SIGKILL: no shutdown code runs. */
  kill(): Promise<void>;
}

/**
 * Starts a service as a real separate process: from its TypeScript entry point through the
 * runtime transpiler, or, with `compiled`, from the JavaScript `npm run build` wrote (`entry`
 * is then the built file, e.g. services/gateway/dist/main.js), as the production image runs it.
 */
export function startServiceProcess(
  entry: string,
  env: Record<string, string>,
  options: { compiled?: boolean } = {},
): ServiceProcess {
  const runtimeArgs = options.compiled ? [] : ['-r', '@swc-node/register'];
  const child = spawn(process.execPath, [...runtimeArgs, resolve(repoRoot, entry)], {
    cwd: repoRoot,
    env: { ...process.env, ...env, SWC_NODE_PROJECT: resolve(repoRoot, 'tsconfig.base.json') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    output += chunk.toString();
    for (const listener of listeners) listener();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));

  return {
    child,
    output: () => output,
    waitForOutput(pattern, timeoutMs = 20_000) {
      return new Promise((done, fail) => {
        const check = () => {
          if (pattern.test(output)) {
            listeners.delete(check);
            clearTimeout(timer);
            done();
          }
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          fail(new Error(`timed out waiting for ${pattern} in output of ${entry}:\n${output.slice(-2000)}`));
        }, timeoutMs);
        listeners.add(check);
        check();
      });
    },
    async stop() {
      if (child.exitCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      return exited;
    },
    async kill() {
      if (child.exitCode !== null) return;
      child.kill('SIGKILL');
      await exited;
    },
  };
}
