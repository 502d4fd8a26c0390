import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PrivateRedis, startPrivateRedis } from '@shop/testing';
import { capturedLogger, Client, figures, isEnvelope, product, Stack, writeFigures } from './harness';

/**
 * Redis holds only caches, locks and counters. On a private redis-server, killed and then
 * frozen: the gateway keeps serving (reads from Postgres, writes through NATS), rate limits fail
 * open with a log line, a gateway can start without it, and once it is back the limits hold
 * again and no cart is served stale.
 */
const limit = 20;
const logs = capturedLogger('warn');
let redis: PrivateRedis;
let stack: Stack;

beforeAll(async () => {
  redis = await startPrivateRedis();
  stack = await Stack.start('redisdown', {
    vars: { REDIS_URL: redis.url, RATE_LIMIT_RPM: String(limit) },
    logger: logs.logger,
  });
});
afterAll(async () => {
  writeFigures('redis-down');
  await stack?.stop();
  await redis?.close();
});

const itemsOf = async (client: Client) =>
  ((await client.request('GET', '/api/cart')).json.items as { id: string }[]).map((i) => i.id);

/** `count` gated requests in a row (each under the client's hang guard); returns their statuses. */
async function burst(client: Client, count: number) {
  const statuses: number[] = [];
  for (let i = 0; i < count; i++) {
    const res = await client.request('GET', '/api/orders');
    statuses.push(res.status);
    if (res.status !== 200) expect(isEnvelope(res.json)).toBe(true);
  }
  return statuses;
}

describe('Redis down', () => {
  it('keeps serving without cache, fails rate limits open with a log line, and recovers', async () => {
    const a = await stack.shopper({ wallet: false });
    const first = await a.client.request('POST', '/api/cart', product('redis-1'));
    expect(await itemsOf(a.client)).toEqual([first.json.id]); // cached now

    await redis.stop('SIGKILL');
    figures.faultsSurvived++;
    // Writes and reads go on, from NATS and Postgres, and the cart is never stale.
    const second = await a.client.request('POST', '/api/cart', product('redis-2'));
    expect(second.status).toBe(201);
    expect(await itemsOf(a.client)).toEqual([first.json.id, second.json.id]);
    expect((await a.client.request('DELETE', `/api/cart/${first.json.id}`)).status).toBe(204);
    expect(await itemsOf(a.client)).toEqual([second.json.id]);
    expect((await a.client.request('POST', '/api/sessions', { title: 'no redis' })).status).toBe(201);
    expect((await a.client.request('GET', '/api/auth/profile')).status).toBe(200);

    // Rate limits fail open (more than the limit all pass) and say so in the log.
    const b = await stack.shopper({ wallet: false });
    const open = await burst(b.client, limit + 10);
    expect(open.every((s) => s === 200)).toBe(true);
    expect(logs.text()).toContain('rate limit not enforced: Redis unavailable');

    // A gateway can start (and serve) while Redis is down.
    const late = await stack.startGateway({}, logs.logger);
    expect(logs.text()).toContain('Redis is not reachable; serving without cache or rate limits');
    const lateClient = new Client(late);
    lateClient.setCookie('provider-jwt', a.client.cookie('provider-jwt')!);
    expect(await itemsOf(lateClient)).toEqual([second.json.id]);

    // Back: the limit holds again (on both gateways, which share the counters).
    await redis.start();
    const c = await stack.shopper({ wallet: false });
    const deadline = Date.now() + 15_000;
    let enforced: number[] = [];
    while (Date.now() < deadline) {
      enforced = await burst(c.client, limit + 5);
      if (enforced.includes(429)) break;
      await sleep(500);
    }
    expect(enforced).toContain(429);
    const refused = await c.client.request('GET', '/api/orders');
    expect([refused.status, refused.json.code]).toEqual([429, 'RATE_LIMIT_EXCEEDED']);
    expect(await itemsOf(a.client)).toEqual([second.json.id]);
  }, 90_000);

  it('serves through a frozen Redis with bounded latency, and serves no stale cart once it answers again', async () => {
    const a = await stack.shopper({ wallet: false });
    const kept = await a.client.request('POST', '/api/cart', product('frozen-1'));
    expect(await itemsOf(a.client)).toEqual([kept.json.id]); // cached, generation known

    redis.freeze();
    figures.faultsSurvived++;
    try {
      // Redis never answers while frozen: every answer here is one the gateway gave without it.
      const added = await a.client.request('POST', '/api/cart', product('frozen-2'));
      expect(added.status).toBe(201);
      expect(await itemsOf(a.client)).toEqual([kept.json.id, added.json.id]);
      const statuses = await burst(a.client, 5);
      expect(statuses.every((s) => s === 200)).toBe(true);
    } finally {
      redis.thaw();
    }
    // Redis answers again with the entry cached before the freeze: the writer must not see it.
    await sleep(200);
    const fresh = await itemsOf(a.client);
    figures.invariantsBroken += fresh.length === 2 ? 0 : 1;
    expect(fresh).toHaveLength(2);
  }, 60_000);
});
