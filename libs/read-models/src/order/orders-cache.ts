import { GenerationCache, Redis } from '@shop/redis';

/**
 * The one definition of the order-list cache: a user's pages, keyed by user with the page and
 * filters as variants, read by the gateway and invalidated by the orders projection. The namespace
 * names the cached page's shape, so a page cached before a field was added (agent) is never read.
 */
export function ordersCache(redis: Redis): GenerationCache {
  return new GenerationCache(redis, 'orders:3', 60);
}
