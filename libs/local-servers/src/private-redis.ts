import { freePort, restartable, spawnManaged } from './private-process';

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
  const server = await restartable(async () => {
    const child = spawnManaged(redisServerBinary, args);
    await child.waitForOutput(/Ready to accept connections/, 15_000);
    return child;
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    get running() {
      return server.running;
    },
    start: () => server.start(),
    stop: (signal) => server.stop(signal),
    freeze() {
      server.current?.child.kill('SIGSTOP');
    },
    thaw() {
      server.current?.child.kill('SIGCONT');
    },
    async close() {
      server.current?.child.kill('SIGCONT');
      await server.stop('SIGKILL');
    },
  };
}
