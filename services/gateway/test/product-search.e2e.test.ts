import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, searchEnv } from '@shop/config';
import { createLogger } from '@shop/logging';
import { ProductSearch } from '@shop/product-search';
import { ApifySandbox, startApifySandbox } from '@shop/sandbox-apify';
import { startSearchService } from '../../search/src/bootstrap';
import { PRODUCT_SEARCH } from '../src/infrastructure/tokens';
import { startTestStack, TestStack } from './stack';

let stack: TestStack;
let apify: ApifySandbox;
let closeSearch: () => Promise<void>;

beforeAll(async () => {
  stack = await startTestStack('prodsearch', { PRODUCT_SERVICE: 'scraping' });
  apify = await startApifySandbox({ token: 'apify-test', port: 0 });
  const config = loadConfig(searchEnv, {
    ...process.env,
    ...stack.env.env,
    PORT: '0',
    HOST: '127.0.0.1',
    SEARCH_SCHEMA: `${stack.env.schema}_search`,
    APIFY_API_TOKEN: 'apify-test',
    APIFY_API_BASE_URL: apify.url,
  });
  const search = await startSearchService(config, createLogger('search', 'silent'), { rpcGracePeriodMs: 0 });
  closeSearch = () => search.app.close();
});
afterAll(async () => {
  await closeSearch?.();
  await apify?.close();
  await stack?.stop();
});

describe('gateway product search with PRODUCT_SERVICE=scraping', () => {
  it('asks the search service for products over NATS request-reply', async () => {
    const productSearch = stack.apps[0]!.get<ProductSearch>(PRODUCT_SEARCH);
    const result = await productSearch.search({ query: 'trail running shoes', page: 1, limit: 5 });
    expect(apify.runsStarted()).toBe(1);
    expect(result.products.length).toBeGreaterThan(0);
    for (const product of result.products) {
      expect(product.productId).toMatch(/^[A-Z0-9]{10}$/i);
      expect(Number.isInteger(product.price)).toBe(true);
    }
    const first = result.products[0]!;
    expect((await productSearch.product(first.productId))?.productId).toBe(first.productId);
  });
});
