import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEnvironment } from '@shop/testing';
import { createRedis, redisReady } from '../src/create-redis';
import { GenerationCache } from '../src/generation-cache';

const env = testEnvironment('gencache');
const redis = createRedis(env.redisUrl, env.redisKeyPrefix);
const cache = new GenerationCache(redis, 'test', 60);
beforeAll(async () => {
  expect(await redisReady(redis)).toBe(true);
});
afterAll(async () => {
  const keys = await redis.keys(`${env.redisKeyPrefix}*`);
  if (keys.length > 0) await redis.del(...keys.map((k) => k.slice(env.redisKeyPrefix.length)));
  await redis.quit();
});

describe('GenerationCache', () => {
  it('hands back the JSON it stored as it is, and the value parsed from it', async () => {
    const key = randomUUID();
    const value = [{ id: 'a', name: 'two words', price: 1200 }];
    const miss = await cache.readJson(key);
    expect(miss.json).toBeUndefined();
    await cache.write(key, value, miss.generation);
    expect((await cache.readJson(key)).json).toBe(JSON.stringify(value));
    expect((await cache.read(key)).value).toEqual(value);
  });

  it('keeps no entry past an invalidation, nor one stored under the generation before it', async () => {
    const key = randomUUID();
    const before = await cache.readJson(key);
    await cache.invalidate([key]);
    await cache.writeJson(key, '[1]', before.generation);
    const after = await cache.readJson(key);
    expect(after.json).toBeUndefined();
    await cache.writeJson(key, '[2]', after.generation);
    expect((await cache.readJson(key)).json).toBe('[2]');
    await cache.invalidate([key]);
    expect((await cache.read(key)).value).toBeUndefined();
  });
});
