import { describe, expect, it, vi } from 'vitest';
import { CATALOG_PRODUCTS } from '../src/catalog-products';
import { CATALOG_CATEGORIES } from '../src/catalog-tables';

describe('the mock catalogue', () => {
  it('has at least 200 products across apparel, footwear and accessories', () => {
    expect(CATALOG_PRODUCTS.length).toBeGreaterThanOrEqual(200);
    for (const category of CATALOG_CATEGORIES) {
      expect(CATALOG_PRODUCTS.filter((product) => product.category === category).length).toBeGreaterThan(40);
    }
  });

  it('gives every product a unique ASIN-like id and complete, well-formed fields', () => {
    expect(new Set(CATALOG_PRODUCTS.map(({ productId }) => productId)).size).toBe(CATALOG_PRODUCTS.length);
    expect(new Set(CATALOG_PRODUCTS.map(({ name }) => name)).size).toBe(CATALOG_PRODUCTS.length);
    for (const product of CATALOG_PRODUCTS) {
      expect(product.productId).toMatch(/^[A-Z0-9]{10}$/);
      expect(Number.isInteger(product.priceCents) && product.priceCents > 0).toBe(true);
      expect(product.sizes.length).toBeGreaterThan(0);
      expect(product.colors.length).toBeGreaterThanOrEqual(2);
      expect(new URL(product.imageUrl).protocol).toBe('https:');
      expect(new URL(product.productUrl).protocol).toBe('https:');
      expect(product.retailer).not.toBe('');
      expect(product.rating).toBeGreaterThanOrEqual(3.5);
      expect(product.rating).toBeLessThanOrEqual(5);
      expect(Number.isInteger(product.reviewCount)).toBe(true);
      expect(product.listedOn).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    }
  });

  it('fits the cart: names and retailers within its limits', () => {
    for (const product of CATALOG_PRODUCTS) {
      expect(product.name.length).toBeLessThanOrEqual(500);
      expect(product.retailer.length).toBeLessThanOrEqual(255);
      for (const value of [...product.sizes, ...product.colors]) expect(value.length).toBeLessThanOrEqual(50);
    }
  });

  it('is rebuilt identically, without randomness or the clock', async () => {
    vi.resetModules();
    const random = vi.spyOn(Math, 'random');
    const now = vi.spyOn(Date, 'now');
    const again = (await import('../src/catalog-products')).CATALOG_PRODUCTS;
    expect(again).not.toBe(CATALOG_PRODUCTS);
    expect(again).toEqual(CATALOG_PRODUCTS);
    expect(random).not.toHaveBeenCalled();
    expect(now).not.toHaveBeenCalled();
    vi.restoreAllMocks();
  });

  // Carts and orders keep product ids: a change to the id derivation would orphan them.
  it('keeps the ids of existing products', () => {
    const first = CATALOG_PRODUCTS[0];
    expect(first?.name).toBe("Harbor & Pine Men's Crew Neck T-Shirt");
    expect(first?.productId).toBe(PINNED_FIRST_ID);
  });
});

const PINNED_FIRST_ID = 'B01VVNMDE1';
