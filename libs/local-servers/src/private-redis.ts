import { freePort, ManagedChild, spawnManaged } from './private-process';

export const redisServerBinary = process.env.REDIS_SERVER_BIN ?? 'redis-server';

/** A redis-server of one test's own on a loopback port, without persistence. */
export interface PrivateRedis {
  readonly url: string;
  readonly port: number;
  readonly running: boolean;
  /** Starts it again on the same port (empty: nothing was persisted). */
  start(): Promise<void>;
  stop(signal?: 'SIGTERM' | 'SIGKILL'): Promise<void>;
  /** SIGSTOP: the server keeps its connections and data but answers nothing (a hung host). */
  freeze(): void;
  /** SIGCONT after `freeze`. */
  thaw(): void;
  close(): Promise<void>;
}

export async function startPrivateRedis(options: { port?: number } = {}): Promise<PrivateRedis> {
  const port = options.port ?? (await freePort());
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
    '--daemonize',
    'no',
  ];
  let server: ManagedChild | null = null;
  const launch = async () => {
    server = spawnManaged(redisServerBinary, args);
    await server.waitForOutput(/Ready to accept connections/, 15_000);
  };
  await launch();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    get running() {
      return server !== null && !server.exited;
    },
    async start() {
      if (server && !server.exited) return;
      await launch();
    },
    async stop(signal = 'SIGTERM') {
      await server?.stop(signal);
    },
    freeze() {
      server?.child.kill('SIGSTOP');
    },
    thaw() {
      server?.child.kill('SIGCONT');
    },
    async close() {
      server?.child.kill('SIGCONT');
      await server?.stop('SIGKILL');
    },
  };
}
