import { searchCatalog } from '@shop/catalog';
import { describe, expect, it } from 'vitest';
import { productQueryOf } from '../src';

describe('productQueryOf', () => {
  it('turns dollar limits into cents and keeps the other filters', () => {
    expect(
      productQueryOf({
        query: 'hoodie',
        color: 'black',
        size: 'M',
        minPrice: 19.99,
        maxPrice: 80,
        sortBy: 'price_asc',
        page: 2,
        limit: 5,
      }),
    ).toEqual({
      query: 'hoodie',
      color: 'black',
      size: 'M',
      minPriceCents: 1999,
      maxPriceCents: 8000,
      sortBy: 'price_asc',
      page: 2,
      limit: 5,
    });
  });

  it('turns a range given upside down round', () => {
    expect(productQueryOf({ query: 'sneakers', minPrice: 120, maxPrice: 50 })).toEqual({
      query: 'sneakers',
      minPriceCents: 5000,
      maxPriceCents: 12000,
    });
  });

  it('asks a question the catalogue accepts', () => {
    const { products } = searchCatalog(productQueryOf({ query: 'running shoes', maxPrice: 120 }));
    expect(products.length).toBeGreaterThan(0);
    for (const { priceCents } of products) expect(priceCents).toBeLessThanOrEqual(12000);
  });
});
