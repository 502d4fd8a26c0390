import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { settlement, testEnvironment } from '@shop/testing';
import { createRedis, redisReady } from '../src/create-redis';
import { LockUnavailableError, RedisLock } from '../src/redis-lock';

const env = testEnvironment('redislock');
const redis = createRedis(env.redisUrl, env.redisKeyPrefix);
const other = createRedis(env.redisUrl, env.redisKeyPrefix);
const locks = new RedisLock(redis);
const otherInstance = new RedisLock(other);

beforeAll(async () => {
  expect(await redisReady(redis)).toBe(true);
  expect(await redisReady(other)).toBe(true);
});
afterAll(async () => {
  const keys = await redis.keys(`${env.redisKeyPrefix}*`);
  if (keys.length > 0) await redis.del(...keys.map((k) => k.slice(env.redisKeyPrefix.length)));
  await Promise.all([redis.quit(), other.quit()]);
});

describe('RedisLock', () => {
  it('gives a key to one owner at a time, across instances', async () => {
    const key = `lock:${randomUUID()}`;
    const leases = await Promise.all(
      Array.from({ length: 6 }, (_, i) => (i % 2 ? locks : otherInstance).acquire(key, 10_000)),
    );
    expect(leases.filter((l) => l !== null)).toHaveLength(1);
    const owner = leases.find((l) => l !== null)!;
    expect(await owner.release()).toBe(true);
    expect(await locks.acquire(key, 10_000)).not.toBeNull();
  });

  it('lets only the owner release or extend; an expired lease cannot touch its successor', async () => {
    const key = `lock:${randomUUID()}`;
    const first = (await locks.acquire(key, 100))!;
    await sleep(150);
    const second = (await otherInstance.acquire(key, 10_000))!;
    expect(second).not.toBeNull();
    expect(await first.release()).toBe(false);
    expect(await first.extend(10_000)).toBe(false);
    expect(await redis.exists(key)).toBe(1);
    expect(await second.extend(20_000)).toBe(true);
    expect(await redis.pttl(key)).toBeGreaterThan(10_000);
    expect(await second.release()).toBe(true);
    expect(await redis.exists(key)).toBe(0);
  });

  it('waits for a held lock when asked to, and gives up after the wait', async () => {
    const key = `lock:${randomUUID()}`;
    const held = (await locks.acquire(key, 10_000))!;
    // The waiter's clock moves only when the test moves it, so only the end of its wait can make it give up.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const asks = vi.spyOn(other, 'set');
      const waiting = settlement(otherInstance.acquire(key, 10_000, { waitMs: 200, pollMs: 20 }));
      while (asks.mock.calls.length < 3) await sleep(10);
      expect(waiting.settled).toBe(false);
      vi.setSystemTime(Date.now() + 200);
      expect(await waiting.promise).toBeNull();
    } finally {
      vi.useRealTimers();
      vi.restoreAllMocks();
    }
    setTimeout(() => void held.release(), 100);
    expect(await otherInstance.acquire(key, 10_000, { waitMs: 2_000, pollMs: 20 })).not.toBeNull();
  });

  it('reports an unreachable Redis instead of pretending the lock is free', async () => {
    const dead = createRedis('redis://127.0.0.1:1', env.redisKeyPrefix);
    await expect(new RedisLock(dead).acquire('lock:x', 1_000)).rejects.toBeInstanceOf(LockUnavailableError);
    dead.disconnect();
  });
});
