import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEnvironment } from '@shop/testing';
import { createRedis, redisReady } from '../src/create-redis';
import { SingleFlightCache } from '../src/single-flight-cache';

const env = testEnvironment('sfcache');
const redis = createRedis(env.redisUrl, env.redisKeyPrefix);
const other = createRedis(env.redisUrl, env.redisKeyPrefix);

beforeAll(async () => {
  expect(await redisReady(redis)).toBe(true);
  expect(await redisReady(other)).toBe(true);
});
afterAll(async () => {
  const keys = await redis.keys(`${env.redisKeyPrefix}*`);
  if (keys.length > 0) await redis.del(...keys.map((k) => k.slice(env.redisKeyPrefix.length)));
  await Promise.all([redis.quit(), other.quit()]);
});

/** A compute function that counts its calls and takes `ms`. */
function counted<T>(value: T, ms = 50) {
  let calls = 0;
  return {
    calls: () => calls,
    compute: async () => {
      calls += 1;
      await sleep(ms);
      return value;
    },
  };
}

describe('SingleFlightCache', () => {
  it('computes a key once and serves it from Redis within its TTL', async () => {
    const cache = new SingleFlightCache<{ items: number[] }>(redis, { namespace: 'a', waitMs: 5_000 });
    const key = randomUUID();
    const source = counted({ items: [1, 2, 3] });
    expect(await cache.get(key, 60_000, source.compute)).toEqual({ items: [1, 2, 3] });
    expect(await cache.get(key, 60_000, source.compute)).toEqual({ items: [1, 2, 3] });
    expect(source.calls()).toBe(1);
    expect(await redis.pttl(`cache:a:${key}`)).toBeGreaterThan(50_000);
  });

  it('shares one computation between concurrent callers in a process and across instances', async () => {
    const here = new SingleFlightCache<string>(redis, { namespace: 'b', waitMs: 5_000, pollMs: 10 });
    const there = new SingleFlightCache<string>(other, { namespace: 'b', waitMs: 5_000, pollMs: 10 });
    const key = randomUUID();
    const source = counted('value', 200);
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => (i % 2 ? here : there).get(key, 60_000, source.compute)),
    );
    expect(results).toEqual(Array(8).fill('value'));
    expect(source.calls()).toBe(1);
  });

  it('never caches a failure: the next caller computes again', async () => {
    const cache = new SingleFlightCache<string>(redis, { namespace: 'c', waitMs: 1_000 });
    const key = randomUUID();
    let calls = 0;
    const failing = async () => {
      calls += 1;
      throw new Error('upstream broke');
    };
    await expect(
      Promise.all([cache.get(key, 60_000, failing), cache.get(key, 60_000, failing)]),
    ).rejects.toThrow('upstream broke');
    expect(calls).toBe(1);
    expect(await cache.get(key, 60_000, async () => 'fine')).toBe('fine');
    expect(await redis.exists(`lock:cache:c:${key}`)).toBe(0);
  });

  it('takes over from an instance that died holding the compute lock', async () => {
    const cache = new SingleFlightCache<string>(redis, {
      namespace: 'd',
      waitMs: 5_000,
      lockTtlMs: 200,
      pollMs: 20,
    });
    const key = randomUUID();
    await redis.set(`lock:cache:d:${key}`, 'a crashed owner', 'PX', 200);
    expect(await cache.get(key, 60_000, async () => 'recomputed')).toBe('recomputed');
    // Stored and unlocked: it took the expired lock over, rather than computing alone once its wait ran out.
    expect(await cache.get(key, 60_000, async () => 'not from the cache')).toBe('recomputed');
    expect(await redis.exists(`lock:cache:d:${key}`)).toBe(0);
  });

  it('does not cache at all with a TTL of 0, and computes without Redis when it is down', async () => {
    const key = randomUUID();
    const source = counted('v', 1);
    const cache = new SingleFlightCache<string>(redis, { namespace: 'e', waitMs: 1_000 });
    await cache.get(key, 0, source.compute);
    await cache.get(key, 0, source.compute);
    expect(source.calls()).toBe(2);
    expect(await redis.exists(`cache:e:${key}`)).toBe(0);

    const dead = createRedis('redis://127.0.0.1:1', env.redisKeyPrefix);
    const seen: unknown[] = [];
    const offline = new SingleFlightCache<string>(dead, {
      namespace: 'e',
      waitMs: 1_000,
      onUnavailable: (e) => seen.push(e),
    });
    expect(await offline.get(key, 60_000, source.compute)).toBe('v');
    expect(seen).toHaveLength(1);
    dead.disconnect();
  });
});
