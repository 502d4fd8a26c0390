import { randomBytes, randomUUID } from 'node:crypto';
import { toBase58 } from '@mysten/sui/utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NatsProductSearch, ProductSearchError } from '@shop/product-search';
import { connectNats } from '@shop/eventstore';
import { ApiClient, SearchStack, startSearchStack } from './stack';

let missing: SearchStack;
let rejected: SearchStack;
let noCoin: SearchStack;

beforeAll(async () => {
  [missing, rejected, noCoin] = await Promise.all([
    startSearchStack('unconfigured', { APIFY_API_TOKEN: '', CHAIN_MERCHANT_ADDRESS: '' }),
    startSearchStack('badtoken', { APIFY_API_TOKEN: 'not-the-platform-token', DEPOSIT_WEBHOOK_SECRET: '' }),
    startSearchStack('nocoin', { CHAIN_COIN_TYPE: '' }),
  ]);
});
afterAll(async () => {
  await Promise.all([missing?.stop(), rejected?.stop(), noCoin?.stop()]);
});

describe('without a scraping token', () => {
  it('answers search and product with 503 saying the token is missing, and reports unavailable', async () => {
    const client = new ApiClient(missing.url);
    for (const path of ['/api/search/realtime?q=socks', '/api/search/realtime/product/B0ABCDEFGH']) {
      const res = await client.get(path);
      expect(res.status).toBe(503);
      expect(res.json).toEqual({
        data: null,
        status: 'SCRAPER_NOT_CONFIGURED',
        code: 503,
        message: expect.stringMatching(/APIFY_API_TOKEN.*missing/),
      });
    }
    const health = await client.get('/api/search/realtime/health');
    expect(health.status).toBe(503);
    expect(health.json).toMatchObject({
      data: { status: 'unavailable' },
      status: 'SERVICE_UNAVAILABLE',
      code: 503,
    });
    expect(missing.apify.runsStarted()).toBe(0);
  });

  it('tells a NATS client the same, as an upstream error', async () => {
    const nc = await connectNats(missing.env.natsUrl, 'test-client');
    const search = new NatsProductSearch({ nc, subjectPrefix: missing.env.subjectPrefix, timeoutMs: 5_000 });
    const error = await search.search({ query: 'socks' }).catch((e: unknown) => e);
    await nc.drain();
    expect(error).toBeInstanceOf(ProductSearchError);
    expect(error).toMatchObject({ kind: 'upstream', code: 'SCRAPER_NOT_CONFIGURED' });
  });
});

describe('with a token the platform refuses', () => {
  it('answers 502 and reports the platform unavailable', async () => {
    const client = new ApiClient(rejected.url);
    const res = await client.get('/api/search/realtime?q=socks');
    expect(res.status).toBe(502);
    expect(res.json).toMatchObject({ data: null, status: 'SCRAPER_AUTH_FAILED', code: 502 });
    const health = await client.get('/api/search/realtime/health');
    expect(health.status).toBe(503);
    expect(health.json.data).toEqual({ status: 'unavailable' });
  });
});

describe('payment verification without its configuration', () => {
  it.each([
    ['CHAIN_MERCHANT_ADDRESS', () => missing],
    ['DEPOSIT_WEBHOOK_SECRET', () => rejected],
    ['CHAIN_COIN_TYPE', () => noCoin],
  ])('is disabled with 503 when %s is missing, and reads nothing from the chain', async (variable, stack) => {
    const res = await new ApiClient(stack().url).request('POST', '/api/payment/verify', {
      txHash: toBase58(randomBytes(32)),
      userId: randomUUID(),
    });
    expect(res.status).toBe(503);
    expect(res.json).toEqual({
      data: null,
      status: 'VERIFICATION_DISABLED',
      code: 503,
      message: expect.stringContaining(variable),
    });
    expect(stack().sui.requestCount()).toBe(0);
  });
});
