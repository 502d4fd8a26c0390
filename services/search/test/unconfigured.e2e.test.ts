import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import { toBase58 } from '@mysten/sui/utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NatsProductSearch, ProductSearchError } from '@shop/product-search';
import { connectNats } from '@shop/eventstore';
import { ApiClient, SearchStack, startSearchStack } from './stack';

let missing: SearchStack;
let rejected: SearchStack;
let unreachable: SearchStack;
let noCoin: SearchStack;

beforeAll(async () => {
  [missing, rejected, unreachable, noCoin] = await Promise.all([
    startSearchStack('unconfigured', { APIFY_API_TOKEN: '', CHAIN_MERCHANT_ADDRESS: '' }),
    startSearchStack('badtoken', { APIFY_API_TOKEN: 'not-the-platform-token', DEPOSIT_WEBHOOK_SECRET: '' }),
    startSearchStack('unreachable', { APIFY_API_BASE_URL: `http://127.0.0.1:${await closedPort()}` }),
    startSearchStack('nocoin', { CHAIN_COIN_TYPE: '' }),
  ]);
});
afterAll(async () => {
  await Promise.all([missing?.stop(), rejected?.stop(), unreachable?.stop(), noCoin?.stop()]);
});

/** A port nothing listens on: connections to it are refused at once. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const { port } = server.address() as AddressInfo;
  await new Promise((closed) => server.close(closed));
  return port;
}

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

describe('when the scraping platform cannot be reached', () => {
  it('answers health with status unavailable in the envelope, and a 503 for probes', async () => {
    const health = await new ApiClient(unreachable.url).get('/api/search/realtime/health');
    expect(health.status).toBe(503);
    expect(health.json).toEqual({
      data: { status: 'unavailable' },
      status: 'SERVICE_UNAVAILABLE',
      code: 503,
      message: expect.stringContaining('ECONNREFUSED'),
    });
  });

  it('documents that 503 answer in /api-docs: the envelope with data.status unavailable', async () => {
    const doc = await new ApiClient(unreachable.url).get('/api-docs-json');
    type Response = { content?: Record<string, { schema: unknown }> };
    const document = doc.json as unknown as {
      paths: Record<string, Record<string, { responses: Record<string, Response> }>>;
    };
    const unavailable = document.paths['/api/search/realtime/health']!.get!.responses['503'];
    expect(unavailable?.content?.['application/json']?.schema).toMatchObject({
      type: 'object',
      required: expect.arrayContaining(['data', 'status', 'code', 'message']),
      properties: {
        data: {
          type: 'object',
          properties: { status: { type: 'string', const: 'unavailable' } },
          required: ['status'],
        },
        status: { type: 'string', const: 'SERVICE_UNAVAILABLE' },
        code: { type: 'number', const: 503 },
      },
    });
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
