import Redis from 'ioredis';

export type { Redis };

/**
 * One client per process. Redis only holds caches, locks and counters, so a call must fail
 * fast when it is down (no offline queue, short command timeout) and the caller carries on.
 * Commands issued in one turn of the event loop go out in one write (auto-pipelining): under
 * load, the rate-limit counts and cache reads of the requests read in that turn share a
 * syscall instead of costing one each.
 */
export function createRedis(url: string, keyPrefix: string): Redis {
  const client = new Redis(url, {
    keyPrefix,
    lazyConnect: false,
    enableAutoPipelining: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    commandTimeout: 500,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
  });
  client.on('error', () => undefined);
  return client;
}

/** Waits (bounded) for the first connection; a service starts without Redis rather than not at all. */
export function redisReady(client: Redis, timeoutMs = 3000): Promise<boolean> {
  if (client.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      client.off('ready', onReady);
      resolve(false);
    }, timeoutMs);
    const onReady = () => {
      clearTimeout(timer);
      resolve(true);
    };
    client.once('ready', onReady);
  });
}
