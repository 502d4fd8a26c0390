import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';

/** Redis could not be asked, so nobody knows who holds the lock: the caller decides what that means. */
export class LockUnavailableError extends Error {
  constructor(
    readonly key: string,
    cause: unknown,
  ) {
    super(`lock ${key} unavailable: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'LockUnavailableError';
  }
}

/** A held lock. Only its owner can release or extend it: a lease that expired is someone else's lock. */
export interface LockLease {
  readonly key: string;
  /** True when this lease still held the lock and deleted it. Never throws: an unreleased lock expires. */
  release(): Promise<boolean>;
  /** Moves the expiry to `ttlMs` from now; false when the lease no longer holds the lock. */
  extend(ttlMs: number): Promise<boolean>;
}

export interface AcquireOptions {
  /** How long to keep trying while another owner holds the lock; 0 tries once. */
  waitMs?: number;
  pollMs?: number;
}

// Compare-and-delete / compare-and-expire: the token proves ownership, so a slow owner whose lease
// ran out cannot remove the lock a later owner now holds.
const releaseScript = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;
const extendScript = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`;

/** Mutual exclusion across every instance sharing the Redis: `SET key token NX PX ttl`. */
export class RedisLock {
  constructor(private readonly redis: Redis) {}

  /** The lease, or null when another owner still holds `key` after `waitMs`. */
  async acquire(
    key: string,
    ttlMs: number,
    { waitMs = 0, pollMs = 50 }: AcquireOptions = {},
  ): Promise<LockLease | null> {
    const deadline = Date.now() + waitMs;
    for (;;) {
      const lease = await this.tryAcquire(key, ttlMs);
      if (lease || Date.now() >= deadline) return lease;
      await sleep(Math.min(pollMs, Math.max(1, deadline - Date.now())));
    }
  }

  private async tryAcquire(key: string, ttlMs: number): Promise<LockLease | null> {
    const token = randomUUID();
    let reply: string | null;
    try {
      reply = await this.redis.set(key, token, 'PX', ttlMs, 'NX');
    } catch (error) {
      throw new LockUnavailableError(key, error);
    }
    return reply === 'OK' ? ownedLease(this.redis, key, token) : null;
  }
}

/** The lease of a lock whose key holds `token`. */
export function ownedLease(redis: Redis, key: string, token: string): LockLease {
  return {
    key,
    release: async () => {
      try {
        return (await redis.eval(releaseScript, 1, key, token)) === 1;
      } catch {
        return false;
      }
    },
    extend: async (nextTtlMs) => {
      try {
        return (await redis.eval(extendScript, 1, key, token, String(nextTtlMs))) === 1;
      } catch {
        return false;
      }
    },
  };
}
