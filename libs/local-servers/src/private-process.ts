import { ChildProcess, spawn, SpawnOptions } from 'node:child_process';
import { createServer } from 'node:net';

/** A free TCP port on the loopback interface (the OS picks it; another process may still take it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Several distinct free ports. */
export async function freePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}

const running = new Set<ChildProcess>();
let exitHookInstalled = false;

/** Whatever a test left running is killed when the test process exits, even after a failure. */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const child of running) child.kill('SIGKILL');
  });
}

export interface ManagedChild {
  child: ChildProcess;
  output(): string;
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<void>;
  /** Sends `signal` (SIGTERM by default) and waits for the exit. */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<void>;
  readonly exited: boolean;
}

/**
 * Spawns a server binary as a child of the test process, keeping its output for assertions
 * and error messages. It is killed with the test process if the test does not stop it.
 */
export function spawnManaged(command: string, args: string[], options: SpawnOptions = {}): ManagedChild {
  installExitHook();
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
  running.add(child);
  let output = '';
  let exited = false;
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    output += chunk.toString();
    if (output.length > 200_000) output = output.slice(-100_000);
    for (const listener of listeners) listener();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exit = new Promise<void>((done) =>
    child.once('exit', () => {
      exited = true;
      running.delete(child);
      for (const listener of listeners) listener();
      done();
    }),
  );
  child.once('error', (error) => {
    output += `\n[spawn error] ${error.message}\n`;
  });
  return {
    child,
    output: () => output,
    get exited() {
      return exited;
    },
    waitForOutput(pattern, timeoutMs = 20_000) {
      return new Promise((done, fail) => {
        const check = () => {
          if (pattern.test(output)) {
            listeners.delete(check);
            clearTimeout(timer);
            done();
          } else if (exited) {
            listeners.delete(check);
            clearTimeout(timer);
            fail(new Error(`${command} exited before printing ${pattern}:\n${output.slice(-2000)}`));
          }
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          fail(new Error(`timed out waiting for ${pattern} from ${command}:\n${output.slice(-2000)}`));
        }, timeoutMs);
        listeners.add(check);
        check();
      });
    },
    async stop(signal = 'SIGTERM', timeoutMs = 10_000) {
      if (exited) return;
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      await exit;
      clearTimeout(timer);
    },
  };
}

/** A server that can be stopped and started again on the same port and data (see restartable). */
export interface RestartableServer {
  /** The process now running, or the last one. */
  readonly current: ManagedChild | null;
  readonly running: boolean;
  /** Starts it again unless it runs. */
  start(): Promise<void>;
  /** Sends `signal` (SIGTERM by default) and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** Launches a server with `launch`, which resolves once it is ready, and lets a test restart it. */
export async function restartable(launch: () => Promise<ManagedChild>): Promise<RestartableServer> {
  let server = await launch();
  return {
    get current() {
      return server;
    },
    get running() {
      return !server.exited;
    },
    async start() {
      if (!server.exited) return;
      server = await launch();
    },
    async stop(signal = 'SIGTERM') {
      await server.stop(signal);
    },
  };
}
