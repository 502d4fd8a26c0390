import { GenerationCache } from '@shop/redis';

export interface UserChangeListener {
  /** Called after a batch touching these users' rows committed, before its checkpoint is announced. */
  usersChanged(userIds: Set<string>): Promise<void>;
}

/**
 * Invalidates a per-user cache after each committed batch. An invalidation Redis refused is
 * retried with the next batch, and entries expire after their TTL anyway, so a Redis blip
 * bounds staleness instead of leaving an entry stale for good.
 */
export function cacheInvalidator(cache: GenerationCache): UserChangeListener {
  const pending = new Set<string>();
  return {
    async usersChanged(userIds) {
      for (const id of userIds) pending.add(id);
      const batch = [...pending];
      await cache.invalidate(batch);
      for (const id of batch) pending.delete(id);
    },
  };
}
