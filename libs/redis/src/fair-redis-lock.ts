import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { AcquireOptions, LockLease, LockUnavailableError, ownedLease } from './redis-lock';

// One step of a waiter: forget waiters that stopped asking, take a ticket on the first ask, and
// take the lock only when free and this waiter holds the lowest ticket. Redis's own clock judges
// staleness, so instances with skewed clocks agree on it.
const stepScript = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local stale = tonumber(ARGV[3])
for _, waiter in ipairs(redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now - stale)) do
  redis.call('ZREM', KEYS[2], waiter)
  redis.call('ZREM', KEYS[3], waiter)
end
if not redis.call('ZSCORE', KEYS[2], ARGV[1]) then
  redis.call('ZADD', KEYS[2], redis.call('INCR', KEYS[4]), ARGV[1])
end
redis.call('ZADD', KEYS[3], now, ARGV[1])
for i = 2, 4 do redis.call('PEXPIRE', KEYS[i], stale * 2) end
if redis.call('ZRANGE', KEYS[2], 0, 0)[1] ~= ARGV[1] then return 0 end
if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 0 end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
return 1`;
const leaveScript = `
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return 1`;

/**
 * A Redis lock served in arrival order, across every instance sharing the Redis. A plain lock
 * goes to whichever waiter polls first after a release, so a caller who keeps sending requests
 * can keep it from one who waits; here a request waits only for those that came before it. A
 * waiter that stops polling (its process died) loses its place after `staleMs`.
 */
export class FairRedisLock {
  constructor(
    private readonly redis: Redis,
    private readonly staleMs = 2_000,
  ) {}

  /** The lease, or null when `waitMs` ran out before this caller's turn came. */
  async acquire(
    key: string,
    ttlMs: number,
    { waitMs = 0, pollMs = 50 }: AcquireOptions = {},
  ): Promise<LockLease | null> {
    const token = randomUUID();
    const queue = [key, `${key}:queue`, `${key}:seen`, `${key}:ticket`];
    const deadline = Date.now() + waitMs;
    try {
      for (;;) {
        const taken = await this.redis.eval(
          stepScript,
          4,
          ...queue,
          token,
          String(ttlMs),
          String(this.staleMs),
        );
        if (taken === 1) return ownedLease(this.redis, key, token);
        if (Date.now() >= deadline) break;
        await sleep(Math.min(pollMs, Math.max(1, deadline - Date.now())));
      }
    } catch (error) {
      throw new LockUnavailableError(key, error);
    }
    await this.redis.eval(leaveScript, 2, queue[1]!, queue[2]!, token).catch(() => undefined);
    return null;
  }
}
