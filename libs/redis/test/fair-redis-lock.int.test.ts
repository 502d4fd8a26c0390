import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEnvironment } from '@shop/testing';
import { createRedis, redisReady } from '../src/create-redis';
import { FairRedisLock } from '../src/fair-redis-lock';
import { LockLease } from '../src/redis-lock';

const env = testEnvironment('fairlock');
const redis = createRedis(env.redisUrl, env.redisKeyPrefix);
const other = createRedis(env.redisUrl, env.redisKeyPrefix);
const STALE_MS = 500;
const instances = [new FairRedisLock(redis, STALE_MS), new FairRedisLock(other, STALE_MS)];

beforeAll(async () => {
  expect(await redisReady(redis)).toBe(true);
  expect(await redisReady(other)).toBe(true);
});
afterAll(async () => {
  const keys = await redis.keys(`${env.redisKeyPrefix}*`);
  if (keys.length > 0) await redis.del(...keys.map((k) => k.slice(env.redisKeyPrefix.length)));
  await Promise.all([redis.quit(), other.quit()]);
});

/** Resolves once `count` callers wait in the queue of `key`: the next caller arrives after them. */
async function waiting(key: string, count: number): Promise<void> {
  while ((await redis.zcard(`${key}:queue`)) < count) await sleep(5);
}

describe('FairRedisLock', () => {
  it('serves waiters in arrival order across instances, one at a time, whoever polls first', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({ instance: fc.integer({ min: 0, max: 1 }), holdMs: fc.integer({ min: 0, max: 30 }) }),
          {
            minLength: 2,
            maxLength: 6,
          },
        ),
        async (callers) => {
          const key = `lock:${randomUUID()}`;
          const first = (await instances[0]!.acquire(key, 10_000))!;
          const granted: number[] = [];
          let holding = 0;
          let overlapped = false;
          const runs: Promise<void>[] = [];
          // Later callers poll more often, as one who keeps retrying would.
          for (const [i, { instance, holdMs }] of callers.entries()) {
            runs.push(
              instances[instance]!.acquire(key, 10_000, {
                waitMs: 10_000,
                pollMs: 1 + (callers.length - i) * 5,
              }).then(async (lease) => {
                holding++;
                overlapped ||= holding > 1;
                granted.push(i);
                await sleep(holdMs);
                holding--;
                await lease!.release();
              }),
            );
            await waiting(key, i + 1);
          }
          await first.release();
          await Promise.all(runs);
          expect(overlapped).toBe(false);
          expect(granted).toEqual(callers.map((_, i) => i));
        },
      ),
      { numRuns: 15 },
    );
  });

  it('lets a caller that tries once take a free lock, and not jump a queue', async () => {
    const key = `lock:${randomUUID()}`;
    const held = (await instances[0]!.acquire(key, 10_000))!;
    const queued = instances[1]!.acquire(key, 10_000, { waitMs: 10_000 });
    await waiting(key, 1);
    await held.release();
    expect(await instances[0]!.acquire(key, 10_000)).toBeNull();
    const lease = (await queued)!;
    expect(lease).not.toBeNull();
    await lease.release();
    const once = await instances[0]!.acquire(key, 10_000);
    expect(once).not.toBeNull();
    await once!.release();
  });

  it('drops a waiter that gave up or stopped asking, so the next one is served', async () => {
    const key = `lock:${randomUUID()}`;
    const held = (await instances[0]!.acquire(key, 10_000))!;
    expect(await instances[1]!.acquire(key, 10_000, { waitMs: 50 })).toBeNull();
    expect(await redis.zcard(`${key}:queue`)).toBe(0);
    // Asks once, then is silent for longer than STALE_MS: as a waiter whose process died would be.
    const silent = instances[1]!.acquire(key, 10_000, { waitMs: 2_000, pollMs: 60_000 });
    await waiting(key, 1);
    const next = instances[0]!.acquire(key, 10_000, { waitMs: 10_000 });
    await waiting(key, 2);
    await held.release();
    const lease: LockLease | null = await next;
    expect(lease).not.toBeNull();
    await lease!.release();
    // Back after the silence, it queues again at the end.
    const late = await silent;
    expect(late).not.toBeNull();
    await late!.release();
  });
});
