import { accessSync, constants, existsSync } from 'node:fs';
import { connect } from 'node:net';
import { delimiter, join } from 'node:path';
import {
  natsServerBinary,
  postgresBinDir,
  redisServerBinary,
  startPrivateNats,
  startPrivatePostgres,
  startPrivateRedis,
} from '@shop/local-servers';

/** A server `npm start` started because none answered; stopped with the stack. */
export interface StartedServer {
  stop(): Promise<void>;
}

export interface Dependency {
  name: string;
  url: string;
  defaultPort: number;
  /** Its server, and the Debian package that installs it. */
  server: string;
  debianPackage: string;
  /** The server binary this machine has, or null. */
  installed(): string | null;
  /** A private server on `port`, its data under `dataDir`. */
  startPrivate(port: number, dataDir: string): Promise<StartedServer>;
}

/** `name` as a path, or looked up on PATH as a shell would. */
function executable(name: string): string | null {
  const candidates = name.includes('/')
    ? [name]
    : (process.env.PATH ?? '').split(delimiter).map((dir) => join(dir, name));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not this one
    }
  }
  return null;
}

function postgresInstalled(): string | null {
  try {
    const pgCtl = join(postgresBinDir(), 'pg_ctl');
    return existsSync(pgCtl) ? pgCtl : null;
  } catch {
    return null;
  }
}

/** The user and password a database URL connects as, which a private cluster must then have. */
export function roleOf(databaseUrl: string | undefined): { name: string; password?: string } | undefined {
  if (!databaseUrl) return undefined;
  const url = new URL(databaseUrl);
  if (!url.username) return undefined;
  return {
    name: decodeURIComponent(url.username),
    ...(url.password && { password: decodeURIComponent(url.password) }),
  };
}

/** The backing services, where the stack's environment says they are. */
export const backingServices = (env: NodeJS.ProcessEnv): Dependency[] => [
  {
    name: 'NATS (JetStream)',
    url: env.NATS_URL ?? 'nats://127.0.0.1:4222',
    defaultPort: 4222,
    server: 'nats-server',
    debianPackage: 'nats-server',
    installed: () => executable(natsServerBinary),
    startPrivate: (port, dataDir) =>
      startPrivateNats({ port, name: 'shop', storeDir: join(dataDir, 'nats') }),
  },
  {
    name: 'PostgreSQL',
    url: env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/shop',
    defaultPort: 5432,
    server: 'the PostgreSQL server',
    debianPackage: 'postgresql',
    installed: postgresInstalled,
    startPrivate: async (port, dataDir) => {
      const server = await startPrivatePostgres({
        port,
        baseDir: join(dataDir, 'postgres'),
        role: roleOf(env.DATABASE_URL),
      });
      return { stop: () => server.stop('fast') };
    },
  },
  {
    name: 'Redis',
    url: env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    defaultPort: 6379,
    server: 'redis-server',
    debianPackage: 'redis-server',
    installed: () => executable(redisServerBinary),
    startPrivate: (port) => startPrivateRedis({ port }),
  },
];

function reachable(host: string, port: number, timeoutMs = 1500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** Where a dependency's (first) URL points. */
export function addressOf(dependency: Dependency): { host: string; port: number } {
  const url = new URL(dependency.url.split(',')[0]!);
  return { host: url.hostname || '127.0.0.1', port: Number(url.port) || dependency.defaultPort };
}

/** The services that did not answer. */
export async function unreachable(dependencies: Dependency[]): Promise<Dependency[]> {
  const results = await Promise.all(
    dependencies.map(async (d) => {
      const { host, port } = addressOf(d);
      return (await reachable(host, port)) ? null : d;
    }),
  );
  return results.filter((d): d is Dependency => d !== null);
}
