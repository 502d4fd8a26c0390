import { describe, expect, it } from 'vitest';
import { CATALOG_PRODUCTS } from '@shop/catalog';
import { createProductSearch } from '../src/create-product-search';
import { MockProductSearch } from '../src/mock-product-search';
import { ProductSearchError } from '../src/product-search-error';
import { productSummarySchema } from '../src/product-summary';

const search = new MockProductSearch();

async function failureOf(promise: Promise<unknown>): Promise<ProductSearchError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ProductSearchError);
  return error as ProductSearchError;
}

describe('MockProductSearch', () => {
  it('answers from the catalogue in the gateway’s shape, the same every time', async () => {
    const result = await search.search({ query: 'running shoes', limit: 5 });
    expect(result.products.length).toBeGreaterThan(0);
    expect(result).toMatchObject({ page: 1, limit: 5 });
    for (const product of result.products) expect(productSummarySchema.parse(product)).toEqual(product);
    expect(await search.search({ query: 'running shoes', limit: 5 })).toEqual(result);
  });

  it('filters on prices in cents and sorts as asked', async () => {
    const { products } = await search.search({
      query: '',
      minPriceCents: 2_000,
      maxPriceCents: 6_000,
      sortBy: 'price_asc',
      limit: 50,
    });
    expect(products.length).toBeGreaterThan(1);
    const prices = products.map((p) => p.price);
    expect(prices.every((price) => price >= 2_000 && price <= 6_000)).toBe(true);
    expect(prices).toEqual([...prices].sort((a, b) => a - b));
  });

  it('finds a product by id in any case, with its sizes and colours, and null for an unknown id', async () => {
    const catalogued = CATALOG_PRODUCTS[7]!;
    const product = await search.product(catalogued.productId.toLowerCase());
    expect(product).toMatchObject({
      productId: catalogued.productId,
      productName: catalogued.name,
      price: catalogued.priceCents,
      sizes: catalogued.sizes,
      colors: catalogued.colors,
    });
    expect(await search.product('B0ZZZZZZZZ')).toBeNull();
  });

  it('refuses invalid questions as `invalid`', async () => {
    expect(await failureOf(search.search({ query: 'x', limit: 51 }))).toMatchObject({
      kind: 'invalid',
      message: expect.stringMatching(/^limit: /),
    });
    expect(await failureOf(search.product('short'))).toMatchObject({ kind: 'invalid' });
  });

  it('is what the factory builds for PRODUCT_SERVICE=mock', () => {
    expect(createProductSearch({ mode: 'mock' })).toBeInstanceOf(MockProductSearch);
  });
});
