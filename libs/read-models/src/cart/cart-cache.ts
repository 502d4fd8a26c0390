import { GenerationCache, Redis } from '@shop/redis';

/** The one definition of the cart cache, shared by the gateway (reads) and the projector (invalidation). */
export function cartCache(redis: Redis): GenerationCache {
  return new GenerationCache(redis, 'cart', 60);
}
