import { GenerationCache, Redis } from '@shop/redis';
import { CartChangeListener } from './cart-items-projection';

/** The one definition of the cart cache, shared by the gateway (reads) and the projector (invalidation). */
export function cartCache(redis: Redis): GenerationCache {
  return new GenerationCache(redis, 'cart', 60);
}

/**
 * Invalidates carts after each committed batch. An invalidation Redis refused is retried
 * with the next batch, and entries expire after their TTL anyway, so a Redis blip bounds
 * staleness instead of leaving a cart stale for good.
 */
export function cartCacheInvalidator(cache: GenerationCache): CartChangeListener {
  const pending = new Set<string>();
  return {
    async cartsChanged(userIds) {
      for (const id of userIds) pending.add(id);
      const batch = [...pending];
      await cache.invalidate(batch);
      for (const id of batch) pending.delete(id);
    },
  };
}
