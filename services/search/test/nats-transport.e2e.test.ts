import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NatsConnection } from 'nats';
import { connectNats } from '@shop/eventstore';
import {
  decodeNestReply,
  encodeNestRequest,
  NatsProductSearch,
  ProductSearchError,
  productSearchSubjects,
  productSummarySchema,
} from '@shop/product-search';
import { ApiClient, SearchStack, startSearchStack, uniqueWords } from './stack';

let stack: SearchStack;
let nc: NatsConnection;
let search: NatsProductSearch;

beforeAll(async () => {
  stack = await startSearchStack('natsrpc');
  nc = await connectNats(stack.env.natsUrl, 'test-gateway');
  search = new NatsProductSearch({ nc, subjectPrefix: stack.env.subjectPrefix, timeoutMs: 10_000 });
});
afterAll(async () => {
  await nc?.drain();
  await stack?.stop();
});

async function failureOf(promise: Promise<unknown>): Promise<ProductSearchError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ProductSearchError);
  return error as ProductSearchError;
}

describe('NatsProductSearch against the search service', () => {
  it('gets realtime products in the gateway’s shape, the same ones the HTTP route ranks', async () => {
    const query = uniqueWords();
    const result = await search.search({ query, limit: 5, maxPriceCents: 5_000, sortBy: 'price_desc' });
    expect(result).toMatchObject({ page: 1, limit: 5 });
    expect(result.products).toHaveLength(5);
    for (const product of result.products) {
      expect(productSummarySchema.parse(product)).toEqual(product);
      expect(product.price).toBeLessThanOrEqual(5_000);
    }
    const http = await new ApiClient(stack.url).get(
      `/api/search/realtime?q=${encodeURIComponent(query)}&limit=5&maxPrice=50&sortBy=price_desc`,
    );
    const scraped = (http.json.data as { products: { asin: string; title: string; price: number }[] })
      .products;
    expect(result.products.map((p) => [p.productId, p.asin, p.productName, p.price])).toEqual(
      scraped.map((p) => [p.asin, p.asin, p.title, Math.round(p.price * 100)]),
    );
    expect(result.products[0]!.retailer).toBe('amazon.com');
  });

  it('finds one product by id, in any case, and answers null for an unknown one', async () => {
    const { products } = await search.search({ query: uniqueWords(), limit: 1 });
    const [first] = products;
    expect(await search.product(first!.productId.toLowerCase())).toEqual(first);
    expect(await search.product('B0NOTHERE0')).toBeNull();
  });

  it('maps failures to typed errors', async () => {
    expect(await failureOf(search.search({ query: '' }))).toMatchObject({ kind: 'invalid' });
    expect(await failureOf(search.product('nope'))).toMatchObject({ kind: 'invalid' });
    stack.apify.failNextRun('FAILED');
    expect(await failureOf(search.search({ query: uniqueWords() }))).toMatchObject({
      kind: 'upstream',
      code: 'SCRAPE_FAILED',
    });
    stack.apify.slowNextRun(1_000);
    const impatient = new NatsProductSearch({ nc, subjectPrefix: stack.env.subjectPrefix, timeoutMs: 100 });
    expect(await failureOf(impatient.search({ query: uniqueWords() }))).toMatchObject({ kind: 'timeout' });
  });

  it('validates what arrives on the wire and answers the error instead of throwing', async () => {
    const subject = productSearchSubjects(stack.env.subjectPrefix).search;
    const message = await nc.request(subject, encodeNestRequest(subject, { query: 'socks', limit: 500 }), {
      timeout: 5_000,
    });
    expect(decodeNestReply(message.data)).toEqual({
      ok: true,
      response: { ok: false, error: { code: 'BAD_REQUEST', message: expect.stringMatching(/^limit: /) } },
    });
  });
});
