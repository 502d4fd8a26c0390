import { connect } from 'node:net';

export interface Dependency {
  name: string;
  url: string;
  defaultPort: number;
  howToStart: string;
}

/** The commands that start each backing service on a machine like the development one. */
export const backingServices = (env: NodeJS.ProcessEnv): Dependency[] => [
  {
    name: 'NATS (JetStream)',
    url: env.NATS_URL ?? 'nats://127.0.0.1:4222',
    defaultPort: 4222,
    howToStart:
      'start-stop-daemon --start --oknodo --background --exec /usr/sbin/nats-server -- -a 127.0.0.1 -p 4222 -js -sd /var/lib/nats-server -l /var/log/nats-server.log',
  },
  {
    name: 'PostgreSQL',
    url: env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/shop',
    defaultPort: 5432,
    howToStart: 'pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start',
  },
  {
    name: 'Redis',
    url: env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    defaultPort: 6379,
    howToStart:
      'redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no --dir /var/lib/redis --logfile /var/log/redis/ci.log',
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

/** The services that did not answer, each with the command that starts it. */
export async function unreachable(dependencies: Dependency[]): Promise<Dependency[]> {
  const results = await Promise.all(
    dependencies.map(async (d) => {
      const url = new URL(d.url.split(',')[0]!);
      return (await reachable(url.hostname || '127.0.0.1', Number(url.port) || d.defaultPort)) ? null : d;
    }),
  );
  return results.filter((d): d is Dependency => d !== null);
}
