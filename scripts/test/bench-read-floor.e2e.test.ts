import Redis from 'ioredis';
import { describe, expect, it } from 'vitest';
import { testEnvironment } from '@shop/testing';
import { readFloor } from '../../bench/read-floor';

describe("the bench's read floor", () => {
  it('reads a cart through Nest on Fastify from memory, behind a count in Redis, and from Redis, checking every answer, and leaves no key behind', async () => {
    const env = testEnvironment('read-floor');
    const cartBody = JSON.stringify({ items: [{ id: 'i1', productName: 'A product', price: '19.99' }] });
    const floor = await readFloor({
      cartBody,
      redisUrl: env.redisUrl,
      keyPrefix: env.redisKeyPrefix,
      seconds: 1,
      concurrency: 4,
      users: 8,
      warmUpSeconds: 0.5,
    });
    // Every answer was checked as it came (the cart's bytes, the limit's headers where counted):
    // one that was not would have failed the run.
    expect(floor.bodyBytes).toBe(Buffer.byteLength(cartBody));
    for (const figure of [floor.framework, floor.rateLimited, floor.gatedRead]) {
      expect(figure.requests).toBeGreaterThan(0);
      expect(figure.perSecond).toBeGreaterThan(0);
      expect(figure.serverUsPerRequest).toBeGreaterThan(0);
    }
    expect(floor.rateLimited.redisUsPerRequest).toBeGreaterThan(0);
    expect(floor.gatedRead.redisUsPerRequest).toBeGreaterThan(0);
    const redis = new Redis(env.redisUrl);
    try {
      expect(await redis.keys(`${env.redisKeyPrefix}*`)).toEqual([]);
    } finally {
      redis.disconnect();
    }
  });
});
