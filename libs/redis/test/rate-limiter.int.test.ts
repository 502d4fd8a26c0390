import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEnvironment } from '@shop/testing';
import { createRedis, redisReady } from '../src/create-redis';
import { rateLimitHeaders, RateLimiter } from '../src/rate-limiter';

const env = testEnvironment('ratelimit');
const redis = createRedis(env.redisUrl, env.redisKeyPrefix);
beforeAll(async () => {
  expect(await redisReady(redis)).toBe(true);
});
afterAll(async () => {
  // KEYS patterns are not prefixed by the client: ask for this file's prefix explicitly.
  const keys = await redis.keys(`${env.redisKeyPrefix}*`);
  if (keys.length > 0) await redis.del(...keys.map((k) => k.slice(env.redisKeyPrefix.length)));
  await redis.quit();
  expect(keys.length).toBeGreaterThan(0);
});

describe('RateLimiter', () => {
  it('lets exactly the limit through in a window, then refuses with a reset', async () => {
    const limiter = new RateLimiter(redis, 'test', 30, 60_000);
    const key = randomUUID();
    const now = Date.now();
    const decisions = [];
    for (let i = 0; i < 31; i++) decisions.push(await limiter.hit(key, now));
    expect(decisions.slice(0, 30).every((d) => d.allowed)).toBe(true);
    expect(decisions[29]!.remaining).toBe(0);
    expect(decisions[30]!.allowed).toBe(false);
    expect(rateLimitHeaders(decisions[30]!)['retry-after']).toMatch(/^\d+$/);
  });

  it('shares one budget between two instances (two clients)', async () => {
    const other = createRedis(env.redisUrl, env.redisKeyPrefix);
    await redisReady(other);
    const a = new RateLimiter(redis, 'shared', 4, 60_000);
    const b = new RateLimiter(other, 'shared', 4, 60_000);
    const key = randomUUID();
    const now = Date.now();
    const results = [
      await a.hit(key, now),
      await b.hit(key, now),
      await a.hit(key, now),
      await b.hit(key, now),
    ];
    expect(results.every((r) => r.allowed)).toBe(true);
    expect((await b.hit(key, now)).allowed).toBe(false);
    await other.quit();
  });

  it('fails open when Redis cannot be reached', async () => {
    const dead = createRedis('redis://127.0.0.1:1', env.redisKeyPrefix);
    const seen: unknown[] = [];
    const limiter = new RateLimiter(dead, 'dead', 1, 60_000, (e) => seen.push(e));
    const first = await limiter.hit('k');
    const second = await limiter.hit('k');
    expect([first.allowed, second.allowed, second.enforced]).toEqual([true, true, false]);
    expect(seen.length).toBe(2);
    dead.disconnect();
  });
});
