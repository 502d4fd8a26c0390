import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, freePorts, restartable, spawnManaged } from './private-process';

export const natsServerBinary = process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server';

export interface PrivateNatsOptions {
  /** Client port; a free one when unset. Kept across restarts. */
  port?: number;
  /** Server name (`-n`), required in a cluster. */
  name?: string;
  cluster?: { name: string; port: number; routes: string[] };
  /** A server configuration file (`-c`), e.g. the shipped infra/nats/nats-server.conf; flags win over it. */
  configFile?: string;
  /** The server's environment beyond the test process's own: what the configuration's `$VARIABLES` read. */
  env?: Record<string, string>;
  /** A store kept across runs (created when missing); a temporary one, deleted on `close`, when unset. */
  storeDir?: string;
}

/**
 * A nats-server with JetStream of one test's own, on a loopback port and a temporary store
 * directory (never the machine's shared server: a test may stop and restart this one at will),
 * or `npm start`'s own when none answers, on the configured port and a store it keeps.
 */
export interface PrivateNats {
  readonly url: string;
  readonly port: number;
  readonly name: string;
  readonly storeDir: string;
  readonly running: boolean;
  /** Starts it again on the same port and store (after `stop`). */
  start(): Promise<void>;
  /** SIGTERM for a clean shutdown, SIGKILL for a crash. */
  stop(signal?: 'SIGTERM' | 'SIGKILL'): Promise<void>;
  output(): string;
  /** Stops it and deletes its store. */
  close(): Promise<void>;
}

export async function startPrivateNats(options: PrivateNatsOptions = {}): Promise<PrivateNats> {
  const port = options.port ?? (await freePort());
  const name = options.name ?? `private-${port}`;
  const storeDir = options.storeDir ?? mkdtempSync(join(tmpdir(), `nats-${name}-`));
  mkdirSync(storeDir, { recursive: true });
  const args = [
    ...(options.configFile ? ['-c', options.configFile] : []),
    '-a',
    '127.0.0.1',
    '-p',
    String(port),
    '-js',
    '-sd',
    storeDir,
    '-n',
    name,
  ];
  if (options.cluster) {
    args.push(
      '--cluster_name',
      options.cluster.name,
      '--cluster',
      `nats://127.0.0.1:${options.cluster.port}`,
      '--routes',
      options.cluster.routes.join(','),
    );
  }
  const server = await restartable(async () => {
    const child = spawnManaged(natsServerBinary, args, { env: { ...process.env, ...options.env } });
    await child.waitForOutput(/Server is ready/, 20_000);
    return child;
  });
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    name,
    storeDir,
    get running() {
      return server.running;
    },
    start: () => server.start(),
    stop: (signal) => server.stop(signal),
    output: () => server.current?.output() ?? '',
    async close() {
      await server.stop('SIGKILL');
      if (!options.storeDir) rmSync(storeDir, { recursive: true, force: true });
    },
  };
}

export interface PrivateNatsCluster {
  nodes: PrivateNats[];
  /** Every node's client URL, comma-separated, as NATS_URL takes it. */
  url: string;
  close(): Promise<void>;
}

/** `size` nats-servers routed into one JetStream cluster on loopback. */
export async function startPrivateNatsCluster(size = 3, clusterName?: string): Promise<PrivateNatsCluster> {
  const ports = await freePorts(size * 2);
  const clientPorts = ports.slice(0, size);
  const routePorts = ports.slice(size);
  const name = clusterName ?? `c${routePorts[0]}`;
  const routes = routePorts.map((p) => `nats://127.0.0.1:${p}`);
  const nodes = await Promise.all(
    clientPorts.map((port, i) =>
      startPrivateNats({
        port,
        name: `${name}-n${i + 1}`,
        cluster: { name, port: routePorts[i]!, routes: routes.filter((_, j) => j !== i) },
      }),
    ),
  );
  return {
    nodes,
    url: nodes.map((n) => n.url).join(','),
    async close() {
      await Promise.all(nodes.map((n) => n.close()));
    },
  };
}
