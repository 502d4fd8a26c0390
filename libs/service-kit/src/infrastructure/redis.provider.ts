import type { Provider } from '@nestjs/common';
import type { Logger } from '@shop/logging';
import { createRedis, redisReady } from '@shop/redis';
import { LOGGER, REDIS } from '../tokens';

/** The process's Redis client; Redis holds only caches, locks and counters, so the service starts without it. */
export function redisProvider(url: string, keyPrefix: string): Provider {
  return {
    provide: REDIS,
    inject: [LOGGER],
    useFactory: async (logger: Logger) => {
      const redis = createRedis(url, keyPrefix);
      if (!(await redisReady(redis)))
        logger.warn({ url }, 'Redis is not reachable; serving without cache or rate limits');
      return redis;
    },
  };
}
