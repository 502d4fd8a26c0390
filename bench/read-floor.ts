import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import Redis from 'ioredis';
import { closedLoop } from './load';
import { cpuSecondsOf, serverCpuBetween, serverCpuSeconds } from './process-stats';

/** One kind of read-floor server, driven saturated. */
export interface ReadFloorFigure {
  requests: number;
  perSecond: number;
  /** The server process's CPU µs per request. */
  serverUsPerRequest: number;
  /** Redis's CPU µs per request over the same time (every client it had). */
  redisUsPerRequest: number;
}

/**
 * What a `GET /api/cart` costs on this machine without our code, in the framework the gateway
 * runs (read-floor-server.ts): `framework` answers from memory, `rateLimited` also counts the
 * request in Redis, `gatedRead` also reads the cached cart there: the work the gateway's read
 * cannot skip.
 */
export interface ReadFloor {
  framework: ReadFloorFigure;
  rateLimited: ReadFloorFigure;
  gatedRead: ReadFloorFigure;
  /** Bytes of the cart each answer carried. */
  bodyBytes: number;
}

async function startServer(env: Record<string, string>): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(
    process.execPath,
    ['-r', '@swc-node/register', join(__dirname, 'read-floor-server.ts')],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, NODE_ENV: 'production', ...env },
    },
  );
  const [line] = (await once(child.stdout!, 'data')) as [Buffer];
  return { child, port: Number(line.toString().trim()) };
}

/** One read; refused unless it carried the whole cart and, when `limited`, the limit's headers. */
function get(agent: Agent, port: number, user: string, expected: Expected): Promise<number[]> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path: '/api/cart', agent, headers: { 'x-user': user } },
      (res) => {
        let bytes = 0;
        res.on('data', (chunk: Buffer) => (bytes += chunk.length));
        res.on('end', () => {
          if (res.statusCode !== 200) reject(new Error(`read floor: status ${res.statusCode}`));
          else if (bytes !== expected.bodyBytes)
            reject(new Error(`read floor: ${bytes} bytes, not the cart's ${expected.bodyBytes}`));
          else if (expected.limited && res.headers['ratelimit-remaining'] === undefined)
            reject(new Error('read floor: no ratelimit-remaining header'));
          else resolve([performance.now() - started]);
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

interface Expected {
  bodyBytes: number;
  limited: boolean;
}

async function drive(
  env: Record<string, string>,
  expected: Expected,
  options: { seconds: number; concurrency: number; users: number; warmUpSeconds?: number },
): Promise<ReadFloorFigure> {
  const { child, port } = await startServer(env);
  const agent = new Agent({ keepAlive: true, maxSockets: options.concurrency });
  const user = (worker: number, iteration: number) =>
    `u${(worker + iteration * options.concurrency) % options.users}`;
  try {
    // Warmed up first, so the figure carries no compiling.
    await closedLoop(options.concurrency, options.warmUpSeconds ?? 2, (w, i) =>
      get(agent, port, user(w, i), expected),
    );
    const cpu0 = cpuSecondsOf(child.pid!);
    const servers0 = serverCpuSeconds();
    const result = await closedLoop(options.concurrency, options.seconds, (w, i) =>
      get(agent, port, user(w, i), expected),
    );
    const servers1 = serverCpuSeconds();
    const cpu = cpuSecondsOf(child.pid!) - cpu0;
    if (result.errors > 0)
      throw new Error(`read floor: ${result.errors} requests failed: ${result.firstError}`);
    const requests = result.latencies.length;
    const us = (seconds: number) => Math.round((seconds / requests) * 1e7) / 10;
    return {
      requests,
      perSecond: Math.round(requests / result.seconds),
      serverUsPerRequest: us(cpu),
      redisUsPerRequest: us(serverCpuBetween(servers0, servers1).redis),
    };
  } finally {
    agent.destroy();
    child.kill();
  }
}

/**
 * The read floor, saturated at the read phase's concurrency: the gateway's CPU per cached cart
 * read is ours only by what it exceeds `gatedRead` by. `cartBody` is a cart as the gateway
 * answered it, so both carry the same bytes. Its keys live under `keyPrefix` and are removed.
 */
export async function readFloor(options: {
  cartBody: string;
  redisUrl: string;
  keyPrefix: string;
  seconds: number;
  concurrency: number;
  users: number;
  warmUpSeconds?: number;
}): Promise<ReadFloor> {
  const { cartBody, redisUrl, keyPrefix } = options;
  const body = { READ_FLOOR_BODY: cartBody };
  const inRedis = { REDIS_URL: redisUrl, READ_FLOOR_KEY_PREFIX: keyPrefix };
  const bodyBytes = Buffer.byteLength(cartBody);
  const redis = new Redis(redisUrl, { keyPrefix });
  try {
    const framework = await drive(
      { READ_FLOOR_MODE: 'memory', ...body },
      { bodyBytes, limited: false },
      options,
    );
    const rateLimited = await drive(
      { READ_FLOOR_MODE: 'limit', ...body, ...inRedis },
      { bodyBytes, limited: true },
      options,
    );
    await redis.set('cart', cartBody);
    const gatedRead = await drive(
      { READ_FLOOR_MODE: 'redis', ...inRedis },
      { bodyBytes, limited: true },
      options,
    );
    return { framework, rateLimited, gatedRead, bodyBytes };
  } finally {
    const keys = await redis.keys(`${keyPrefix}*`);
    // KEYS answers with the prefix; DEL would add it again.
    if (keys.length > 0) await redis.del(...keys.map((key) => key.slice(keyPrefix.length)));
    redis.disconnect();
  }
}
