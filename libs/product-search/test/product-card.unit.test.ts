import { describe, expect, it } from 'vitest';
import { CATALOG_PRODUCTS } from '@shop/catalog';
import { catalogProductSummary } from '../src/mock-product-search';
import { productCardOf, productCardSchema } from '../src/product-card';
import { productSummarySchema } from '../src/product-summary';

describe('productCardOf', () => {
  it("is the summary, unchanged, plus the frontend's names for its id, name, image and retailer", () => {
    for (const catalogProduct of CATALOG_PRODUCTS) {
      const summary = catalogProductSummary(catalogProduct);
      const card = productCardOf(summary);
      expect(productCardSchema.parse(card)).toEqual(card);
      expect(productSummarySchema.parse(card)).toEqual(summary);
      expect(card).toMatchObject({
        id: summary.productId,
        name: summary.productName,
        price: summary.price,
        currency: 'USD',
        imageUrl: summary.image,
        marketplace: summary.retailer,
      });
    }
  });

  it("keeps a marketplace product's asin", () => {
    const summary = { ...catalogProductSummary(CATALOG_PRODUCTS[0]!), asin: 'B0FFGPHZGN' };
    expect(productCardOf(summary).asin).toBe('B0FFGPHZGN');
  });
});
