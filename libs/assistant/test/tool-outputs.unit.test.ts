import { describe, expect, it } from 'vitest';
import { MockProductSearch } from '@shop/product-search';
import { readDetails, readRemembered, readSearch } from '../src/offline/tool-results';
import {
  getProductDetailsOutput,
  rememberMemoryOutput,
  searchProductsOutput,
  SHOPPING_TOOLS,
  type ShoppingToolName,
} from '../src';

const products = new MockProductSearch();
const exchange = (toolName: ShoppingToolName, value: unknown, input: unknown = {}) => ({
  toolCallId: 'call-1',
  toolName,
  input,
  outcome: { ok: true as const, value },
});

describe("the tools' answers, as their schemas say and the offline model reads them back", () => {
  it('answers a search with its products as cards, which read back as the products', async () => {
    const result = await products.search({ query: 'hoodies', limit: 3 });
    const output = searchProductsOutput(result);
    expect(SHOPPING_TOOLS.searchProducts.outputSchema.parse(output)).toEqual(output);
    expect(output.products.map(({ id, name }) => ({ id, name }))).toEqual(
      result.products.map(({ productId, productName }) => ({ id: productId, name: productName })),
    );
    expect(readSearch(exchange('searchProducts', output, { query: 'hoodies' }))?.products).toEqual(
      result.products,
    );
  });

  it('reads a search stored before its products were cards', async () => {
    const stored = await products.search({ query: 'hoodies', limit: 3 });
    expect(readSearch(exchange('searchProducts', stored, { query: 'hoodies' }))?.products).toEqual(
      stored.products,
    );
  });

  it('answers details with the product itself as a card, which reads back as the product, and an unknown id with no product', async () => {
    const { products: found } = await products.search({ query: 'hoodies', limit: 1 });
    const product = found[0]!;
    const details = getProductDetailsOutput(product.productId, product);
    expect(SHOPPING_TOOLS.getProductDetails.outputSchema.parse(details)).toEqual(details);
    expect(details).toMatchObject({ id: product.productId, name: product.productName });
    expect(readDetails(exchange('getProductDetails', details))).toEqual(product);

    const missing = getProductDetailsOutput('B0MISSING1', null);
    expect(missing).toEqual({ productId: 'B0MISSING1', found: false });
    expect(SHOPPING_TOOLS.getProductDetails.outputSchema.parse(missing)).toEqual(missing);
    expect(readDetails(exchange('getProductDetails', missing))).toBeNull();
  });

  it('answers a remembered preference as the memory card the frontend shows', () => {
    const output = rememberMemoryOutput('I prefer slim fit');
    expect(output).toEqual({ success: true, text: 'I prefer slim fit', message: expect.any(String) });
    expect(readRemembered(exchange('rememberMemory', output))?.text).toBe('I prefer slim fit');
  });
});
